/** Plans and what each allows: the one place the spec's plan rules live. */
export const PLAN_NAMES = ['free', 'starter', 'pro', 'business'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export const SUBSCRIPTION_STATUSES = ['active', 'expired', 'inactive'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface RateLimits {
  perMinute: number;
  perHour: number;
}

/** The spec's Limits table. Free has no API access, hence no limits. */
const PLAN_LIMITS: Record<PlanName, RateLimits | null> = {
  free: null,
  starter: { perMinute: 5, perHour: 300 },
  pro: { perMinute: 20, perHour: 1200 },
  business: { perMinute: 60, perHour: 3600 },
};

export const BULK_DOWNLOAD_PLANS: readonly PlanName[] = ['pro', 'business'];

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

export function isSubscriptionStatus(value: unknown): value is SubscriptionStatus {
  return typeof value === 'string' && (SUBSCRIPTION_STATUSES as readonly string[]).includes(value);
}

export function planLimits(plan: PlanName): RateLimits | null {
  return PLAN_LIMITS[plan];
}

export function planAllowsBulkDownload(plan: PlanName): boolean {
  return BULK_DOWNLOAD_PLANS.includes(plan);
}
