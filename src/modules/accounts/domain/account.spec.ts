import { Account } from './account';
import { PlanName, SubscriptionStatus } from './plan';

const make = (plan: PlanName, status: SubscriptionStatus = 'active', expiresAt: Date | null = null, overrides = { perMinute: null, perHour: null }) =>
  Account.restore({ id: 1, name: 'A', email: 'a@example.com', plan, subscriptionStatus: status, expiresAt, limitOverrides: overrides, createdAt: new Date() });

describe('Account plan rules', () => {
  const now = new Date('2026-11-22T10:00:00Z');

  it.each<[PlanName, SubscriptionStatus, Date | null, boolean]>([
    ['free', 'active', null, false],
    ['starter', 'active', null, true],
    ['pro', 'active', new Date('2026-12-01T00:00:00Z'), true],
    ['pro', 'active', new Date('2026-11-22T10:00:00Z'), false],
    ['business', 'expired', null, false],
    ['business', 'inactive', null, false],
  ])('%s / %s / expires %s → API access %s', (plan, status, expiresAt, expected) => {
    expect(make(plan, status, expiresAt).hasApiAccess(now)).toBe(expected);
  });

  it('limits follow the spec table, overridden field by field', () => {
    expect(make('starter').rateLimits()).toEqual({ perMinute: 5, perHour: 300 });
    expect(make('pro').rateLimits()).toEqual({ perMinute: 20, perHour: 1200 });
    expect(make('business').rateLimits()).toEqual({ perMinute: 60, perHour: 3600 });
    expect(make('starter', 'active', null, { perMinute: 50, perHour: null } as never).rateLimits()).toEqual({ perMinute: 50, perHour: 300 });
  });

  it('bulk download only on Pro and Business', () => {
    expect(make('starter').allowsBulkDownload()).toBe(false);
    expect(make('pro').allowsBulkDownload()).toBe(true);
    expect(make('business').allowsBulkDownload()).toBe(true);
  });
});
