import { DomainError } from '../../../shared/domain/domain-error';
import { BULK_DOWNLOAD_PLANS, PlanName } from './plan';

/** Spec, Errors: 403 with exactly this text and the caller's plan. */
export class PlanNoApiAccessError extends DomainError {
  constructor(currentPlan: PlanName) {
    super('plan_no_api_access', 'API access is not available on your plan', { current_plan: currentPlan });
  }
}

export class PlanUpgradeRequiredError extends DomainError {
  constructor(currentPlan: PlanName, feature: string, requiredPlans: readonly PlanName[] = BULK_DOWNLOAD_PLANS) {
    super('plan_upgrade_required', `${feature} requires the ${requiredPlans.map((p) => p[0].toUpperCase() + p.slice(1)).join(' or ')} plan`, {
      current_plan: currentPlan,
      required_plans: [...requiredPlans],
    });
  }
}

/** Dashboard sign-in with a wrong email or password: one message for both, so it never tells which. */
export class InvalidCredentialsError extends DomainError {
  constructor() {
    super('unauthorized', 'The email or password is incorrect.');
  }
}

export class SignInLockedError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    const minutes = Math.ceil(retryAfterSeconds / 60);
    super('rate_limited', `Too many failed sign-in attempts. Try again in ${minutes === 1 ? '1 minute' : `${minutes} minutes`}.`);
  }
}
