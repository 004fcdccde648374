/**
 * Webhooks (API.md "Webhooks", Standard Webhooks format — standardwebhooks.com): the rules of an endpoint and of
 * the delivery of one event to it. Plain TypeScript; node:crypto only for the secret and the signature.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_EVENTS = [
  'screenshot.succeeded',
  'screenshot.failed',
  'execution.succeeded',
  'execution.failed',
  'screenshot.changed',
  'batch.completed',
] as const;
/** Change history: sent once a capture's comparison found a change (`changed: true`), after the comparison. */
export const CHANGED_EVENT = 'screenshot.changed';
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Sent by POST /webhooks/{id}/test only; never subscribed to. */
export const TEST_EVENT = 'webhook.test';

export const WEBHOOK_LIMITS = { descriptionMax: 500, urlMax: 2048, perAccount: 20 } as const;

/** A delivery attempt must be answered with a 2xx within this long to count as delivered. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * An endpoint whose deliveries have all failed for this long is disabled (visible on GET, re-enabled by PUT): a
 * webhook and a notification channel alike (one rule, kept by the dispatcher for both).
 */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000;
/** The `disabled_reason` the service gives when it disabled an endpoint by the rule above. */
export const FAILING_DISABLED_REASON = 'every delivery failed for 3 days';
export const DEFAULT_RETRY_DELAYS_S = [5, 30, 120, 600, 3600, 21600];

export interface WebhookProps {
  id: number;
  accountId: number;
  url: string;
  events: WebhookEvent[];
  description: string | null;
  enabled: boolean;
  /** `whsec_<base64 of 32 random bytes>`; shown once, at creation. */
  secret: string;
  failingSince: Date | null;
  disabledReason: string | null;
  /** When the service disabled it (null: enabled, or disabled by hand). */
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryProps {
  /** The message id: `webhook-id` on every attempt, and the body's `id`. */
  id: string;
  /** The webhook endpoint it goes to; null for a notification channel's delivery. */
  webhookId: number | null;
  /** The notification channel it goes to (modules/notifications); null for a webhook's delivery. */
  channelId: number | null;
  accountId: number;
  eventType: string;
  sourceId: string | null;
  /** The exact body sent on every attempt. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  lastAttemptAt: Date | null;
  createdAt: Date;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The message id of one event for one endpoint: derived, not random, so every instance that turns the same
 * finished job into deliveries names them alike and the database keeps one.
 */
export function messageId(webhookId: number | string, sourceId: string, eventType: string): string {
  return `msg_${createHash('sha256').update(`${webhookId}:${sourceId}:${eventType}`).digest('base64url').slice(0, 27)}`;
}

export function randomMessageId(): string {
  return `msg_${randomBytes(20).toString('base64url')}`;
}

/** The three Standard Webhooks headers for one attempt: `v1,` + base64 HMAC-SHA256 of "id.timestamp.body". */
export function signedHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}

/**
 * A delivery not yet attempted: due at once, its body fixed for every attempt. A webhook's body is the event
 * (`data` wrapped as `{id, type, created_at, data}`); a notification channel's is its rendered message (`body`).
 */
export function newDelivery(d: {
  id: string;
  webhookId: number | null;
  channelId?: number | null;
  accountId: number;
  eventType: string;
  sourceId: string | null;
  happenedAt: Date;
  data?: unknown;
  body?: string;
  now: Date;
}): DeliveryProps {
  return {
    id: d.id,
    webhookId: d.webhookId,
    channelId: d.channelId ?? null,
    accountId: d.accountId,
    eventType: d.eventType,
    sourceId: d.sourceId,
    payload: d.body ?? eventBody(d.id, d.eventType, d.happenedAt, d.data),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: d.now,
    lastStatusCode: null,
    lastError: null,
    lastDurationMs: null,
    lastAttemptAt: null,
    createdAt: d.now,
  };
}

/** The body: `{id, type, created_at, data}`. */
export function eventBody(id: string, type: string, createdAt: Date, data: unknown): string {
  return JSON.stringify({ id, type, created_at: createdAt.toISOString(), data });
}

/** What follows a failed attempt number `attempt` (1-based): the next try, or none left. */
export function retryAfter(attempt: number, delaysSeconds: readonly number[], now: Date): Date | null {
  if (attempt > delaysSeconds.length) return null;
  return new Date(now.getTime() + delaysSeconds[attempt - 1] * 1000);
}

/** An endpoint (webhook or channel) that has been failing since `failingSince` is disabled once that reaches three days. */
export function shouldDisable(failingSince: Date | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
}

export function isWebhookEvent(name: string): name is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}

/**
 * Which event a finished job is: the one its job kind declares for the outcome (JobKind.events), or none — a kind
 * that emits nothing (a render), or one this version does not know.
 */
export function eventForJob(events: { succeeded: string; failed: string } | null | undefined, status: 'succeeded' | 'failed'): WebhookEvent | null {
  const event = events?.[status];
  return event !== undefined && isWebhookEvent(event) ? event : null;
}
