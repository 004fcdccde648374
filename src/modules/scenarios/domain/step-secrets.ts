import { ValidationFailedError, FieldError } from '../../../shared/domain/domain-error';
import { REDACTED } from '../../../shared/domain/capture-secrets';
import type { FillStep, Step } from './steps';

/**
 * Secret fill values (`{type: "fill", secret: true}`, issue 27): like a website's capture secrets they are sealed
 * at rest (in the scenario row and in a run's snapshot of its steps), shown as "********" in every answer, and a
 * "********" sent back keeps the stored value. The sealing itself is the caller's (SecretBox); these are the rules.
 */

/** What answers show in place of a secret fill value; sent back as it is, it keeps the stored value. */
export const SECRET_MASK = REDACTED;

export type SecretFillStep = FillStep & { secret: true };

/** A secret fill step as stored: the value sealed, never in plain text. */
export interface SealedFillStep {
  type: 'fill';
  selector: string;
  secret: true;
  sealed_value: string;
}

/** A step as stored in a scenario row or a run's job options. */
export type StoredStep = Exclude<Step, FillStep> | FillStep | SealedFillStep;

export function isSecretFill(step: Step): step is SecretFillStep {
  return step.type === 'fill' && step.secret === true;
}

function isSealedFill(step: StoredStep): step is SealedFillStep {
  return step.type === 'fill' && 'sealed_value' in step;
}

/** The steps as answers show them: every secret fill value replaced by SECRET_MASK. */
export function maskStepSecrets(steps: readonly Step[]): Step[] {
  return steps.map((step) => (isSecretFill(step) ? { ...step, value: SECRET_MASK } : step));
}

/** The steps with every secret fill value sealed by `seal` (for storage). */
export function sealStepSecrets(steps: readonly Step[], seal: (plain: string) => string): StoredStep[] {
  return steps.map((step) => (isSecretFill(step) ? { type: 'fill', selector: step.selector, secret: true, sealed_value: seal(step.value) } : step));
}

/** Stored steps with every sealed value opened by `open` (what a run types, and what the service works with). */
export function openStepSecrets(steps: readonly StoredStep[], open: (sealed: string) => string): Step[] {
  return steps.map((step) => (isSealedFill(step) ? { type: 'fill', selector: step.selector, value: open(step.sealed_value), secret: true } : step));
}

/**
 * New steps for a scenario whose stored steps are `stored` (null when it is new): a secret fill whose value is
 * SECRET_MASK (a client echoing GET, the dashboard's masked input) takes the stored value of the secret fill
 * it stands for — the n-th secret fill of the same selector, so moving steps around keeps each value. A mask
 * with no stored value behind it, or on a fill no longer secret whose selector had one, is a 422: typing
 * "********" into the page is never what was meant.
 */
export function keepStepSecrets(next: readonly Step[], stored: readonly Step[] | null): Step[] {
  const storedBySelector = new Map<string, string[]>();
  for (const step of stored ?? []) {
    if (isSecretFill(step)) storedBySelector.set(step.selector, [...(storedBySelector.get(step.selector) ?? []), step.value]);
  }
  const seen = new Map<string, number>();
  const problems: FieldError[] = [];
  const steps = next.map((step, index) => {
    if (step.type === 'fill' && step.secret !== true && step.value === SECRET_MASK && storedBySelector.has(step.selector)) {
      // `secret` turned off with the mask still in place: the stored value is not made plain, nor replaced by "********".
      const field = `steps[${index}].value`;
      problems.push({ field, message: `${field} is "${SECRET_MASK}", the mask of a stored secret value; to store it without secret, send the value itself` });
      return step;
    }
    if (!isSecretFill(step)) return step;
    const nth = seen.get(step.selector) ?? 0;
    seen.set(step.selector, nth + 1);
    if (step.value !== SECRET_MASK) return step;
    const kept = storedBySelector.get(step.selector)?.[nth];
    if (kept === undefined) {
      const field = `steps[${index}].value`;
      problems.push({
        field,
        message: `${field} is "${SECRET_MASK}", which keeps a stored secret value, but this scenario has none for this step; send the value`,
      });
      return step;
    }
    return { ...step, value: kept };
  });
  if (problems.length > 0) throw new ValidationFailedError(problems);
  return steps;
}
