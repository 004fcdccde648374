import { planAllowsBulkDownload, planLimits, PlanName, RateLimits, SubscriptionStatus } from './plan';

export interface LimitOverrides {
  perMinute: number | null;
  perHour: number | null;
}

export interface AccountProps {
  id: number;
  name: string;
  email: string;
  plan: PlanName;
  subscriptionStatus: SubscriptionStatus;
  expiresAt: Date | null;
  limitOverrides: LimitOverrides;
  createdAt: Date;
}

export class Account {
  private constructor(private readonly props: AccountProps) {}

  static restore(props: AccountProps): Account {
    return new Account({ ...props, limitOverrides: { ...props.limitOverrides } });
  }

  get id(): number {
    return this.props.id;
  }
  get name(): string {
    return this.props.name;
  }
  get email(): string {
    return this.props.email;
  }
  get plan(): PlanName {
    return this.props.plan;
  }
  get subscriptionStatus(): SubscriptionStatus {
    return this.props.subscriptionStatus;
  }
  get expiresAt(): Date | null {
    return this.props.expiresAt;
  }
  get limitOverrides(): LimitOverrides {
    return { ...this.props.limitOverrides };
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }

  /** Only an active, unexpired, paid subscription reaches the API (spec, Authentication 4). */
  hasApiAccess(now: Date): boolean {
    if (this.props.plan === 'free') return false;
    if (this.props.subscriptionStatus !== 'active') return false;
    return this.props.expiresAt === null || this.props.expiresAt.getTime() > now.getTime();
  }

  /** Plan limits, replaced field by field by the operator's per-account overrides. */
  rateLimits(): RateLimits {
    const base = planLimits(this.props.plan) ?? { perMinute: 0, perHour: 0 };
    return {
      perMinute: this.props.limitOverrides.perMinute ?? base.perMinute,
      perHour: this.props.limitOverrides.perHour ?? base.perHour,
    };
  }

  allowsBulkDownload(): boolean {
    return planAllowsBulkDownload(this.props.plan);
  }
}
