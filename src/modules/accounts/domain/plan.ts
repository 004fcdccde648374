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

/**
 * How many captures (jobs of any type) an account may run at once across every worker: what one account's
 * backlog can take of the service's slots (CAPTURE_CONCURRENCY per worker, 16 on two cores by default), so the
 * rest stay free for other accounts. Renders and long-polled jobs count too. Figures: docs/fair-slots.md.
 */
const PLAN_CAPTURE_SLOTS: Record<PlanName, number> = { free: 2, starter: 4, pro: 8, business: 12 };

export function planCaptureSlots(plan: PlanName): number {
  return PLAN_CAPTURE_SLOTS[plan];
}

/** How many URLs one batch (POST /batches) may hold, by plan (docs/batches.md). */
const PLAN_BATCH_SIZE: Record<PlanName, number> = { free: 0, starter: 100, pro: 500, business: 1000 };

export function planBatchSize(plan: PlanName): number {
  return PLAN_BATCH_SIZE[plan];
}
