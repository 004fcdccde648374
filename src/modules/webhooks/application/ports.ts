import type { Page, PageRequest } from '../../../shared/domain/page-request';
import type { DeliveryProps, WebhookEvent, WebhookProps } from '../domain/webhook';
import type { FailureStreak } from './failure-streak';

export interface NewWebhook {
  accountId: number;
  url: string;
  events: WebhookEvent[];
  description: string | null;
  secret: string;
  createdAt: Date;
}

export interface WebhookChanges {
  url?: string;
  events?: WebhookEvent[];
  description?: string | null;
  enabled?: boolean;
}

/** A finished job whose events have not been turned into deliveries yet. */
export interface FinishedJob {
  id: string;
  /** Its job kind's name (JobKinds): which events it emits is the kind's declaration. */
  type: string;
  status: 'succeeded' | 'failed';
  accountId: number;
  /** The website captured (or whose scenario ran); null when it was deleted. */
  websiteId: number | null;
  finishedAt: Date;
}

/** A capture whose comparison found a change, not announced yet (change history). */
export interface FoundChange {
  screenshotId: number;
  accountId: number;
  websiteId: number;
  comparedAt: Date;
}

/** What one attempt came to. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: Date;
  /** Delivered (a 2xx in time). */
  delivered: boolean;
  /** When to try again; null: no tries left, the delivery has failed. Ignored when delivered. */
  retryAt: Date | null;
}

export abstract class WebhookRepository implements FailureStreak {
  /** Creates the webhook unless the account already has `limit` (null then): atomic, whatever runs concurrently. */
  abstract createWithinLimit(webhook: NewWebhook, limit: number): Promise<WebhookProps | null>;
  abstract findOwned(accountId: number, id: number): Promise<WebhookProps | null>;
  abstract findById(id: number): Promise<WebhookProps | null>;
  abstract list(accountId: number, page: PageRequest): Promise<Page<WebhookProps>>;
  abstract update(id: number, changes: WebhookChanges, now: Date): Promise<WebhookProps>;
  abstract delete(id: number): Promise<void>;

  /** Enabled endpoints of the account subscribed to `event`, registered before the event happened. */
  abstract subscribers(accountId: number, event: string, happenedAt: Date): Promise<WebhookProps[]>;
  /**
   * Finished jobs (since `since`) of accounts that have an enabled webhook registered before the job ended, or
   * are among `alsoAccounts` (those with channels), whose events have not been emitted yet; oldest first.
   * Accounts without webhooks or channels never cost a write per job. Only jobs of `types` (the kinds that emit
   * events): the others are never read nor marked.
   */
  abstract jobsToEmit(since: Date, limit: number, types: string[], alsoAccounts?: number[]): Promise<FinishedJob[]>;
  abstract markEmitted(jobId: string, now: Date): Promise<void>;
  /** Like jobsToEmit, for screenshot.changed: changed captures (compared since `since`) not announced yet, oldest first. */
  abstract changesToEmit(since: Date, limit: number, alsoAccounts?: number[]): Promise<FoundChange[]>;
  abstract markChangeEmitted(screenshotId: number, now: Date): Promise<void>;
  /** Inserts deliveries; one whose id exists already (another instance emitted the same event) is skipped. */
  abstract insertDeliveries(deliveries: DeliveryProps[]): Promise<void>;
  /**
   * Takes up to `limit` due pending deliveries for one attempt each: attempts + 1 and held until `lockUntil`, so
   * no other instance sends the same attempt. The returned `attempts` fences the outcome's write.
   */
  abstract claimDue(now: Date, lockUntil: Date, limit: number): Promise<DeliveryProps[]>;
  /** Writes an attempt's outcome, only while that attempt still holds the delivery. */
  abstract recordAttempt(delivery: DeliveryProps, outcome: AttemptOutcome): Promise<boolean>;
  /** Gives an attempt back untried (the account's delivery rate is spent): due again at `until`. */
  abstract postpone(delivery: DeliveryProps, until: Date): Promise<void>;
  /** An endpoint's deliveries, newest first: a webhook's, or a notification channel's. */
  abstract listDeliveries(of: { webhookId: number } | { channelId: number }, page: PageRequest): Promise<Page<DeliveryProps>>;
  abstract markHealthy(webhookId: number): Promise<void>;
  abstract markFailing(webhookId: number, now: Date): Promise<Date | null>;
  abstract disable(webhookId: number, reason: string, now: Date): Promise<boolean>;
}

/** The `data` of an event about a job, as the API shows it (GET /jobs/{id} and the screenshot; or the execution). */
export abstract class EventPayloads {
  /** `event` (the job kind's, e.g. `execution.succeeded`) decides the shape: `{execution}` or `{job, screenshot}`. */
  abstract forJob(job: FinishedJob, event: WebhookEvent): Promise<unknown>;
  /** screenshot.changed: both ids, the ratio and the screenshot as the API shows it; null when it was deleted meanwhile. */
  abstract forChange(change: FoundChange): Promise<unknown>;
}

/** Where deliveries leave the service: an HTTP POST through the URL policy, with a time limit. */
export abstract class WebhookSender {
  abstract post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<{ statusCode: number | null; error: string | null }>;
}

/** One event of an EventSource, not turned into deliveries yet. */
export interface SourcedEvent {
  /** What the event is about (a batch's id; at most 36 characters): with the endpoint and the event, it names the delivery (messageId). */
  sourceId: string;
  accountId: number;
  happenedAt: Date;
  /** The event's `data` (loaded only when someone subscribes to it). */
  data(): Promise<unknown>;
}

/**
 * Events another context keeps the record of (a batch that ended: `batch.completed`), registered at boot so this
 * context imports none of theirs. Read and marked by the dispatcher like finished jobs: a source lists what it has
 * not had emitted yet, and an event is marked only once its deliveries are stored (at least once, never lost).
 */
export interface EventSource {
  /** The event's name, among WEBHOOK_EVENTS. */
  readonly event: string;
  pending(since: Date, limit: number): Promise<SourcedEvent[]>;
  markEmitted(sourceId: string, now: Date): Promise<void>;
}

/** An event the dispatcher found (a finished job, a found change, or a channel's test), as channels see it. */
export interface ChannelEvent {
  type: string;
  /** The job, execution or `screenshot-<id>` the event is about. */
  sourceId: string;
  accountId: number;
  websiteId: number | null;
  happenedAt: Date;
  /** The event's `data` as webhooks get it (loaded once, only when a channel wants the event); null: gone meanwhile. */
  data(): Promise<unknown>;
}

/** One attempt's answer from a channel. */
export interface ChannelAttempt {
  statusCode: number | null;
  error: string | null;
  delivered: boolean;
  /** Nothing was tried (the channel was deleted or disabled meanwhile): its failure streak is left as it is. */
  skipped?: boolean;
  /** The channel's failure streak was running (`failing_since` set) as read for this attempt: only then does a delivery end it. */
  wasFailing: boolean;
}

/**
 * Notification channels (modules/notifications) are another kind of subscriber of the same events: the
 * dispatcher hands them each event it emits and their deliveries ride the same durable rows, claims and retries
 * as webhooks' (webhook_deliveries.channel_id). Registered at boot, so this context imports none of theirs.
 */
export interface ChannelSubscribers extends FailureStreak {
  /** Accounts with at least one enabled channel: their finished jobs and changes are read. */
  listeningAccounts(): Promise<number[]>;
  /** The deliveries of an event to the account's channels that want it (their rendered messages); often none. */
  deliveriesFor(event: ChannelEvent, now: Date): Promise<DeliveryProps[]>;
  /** One attempt of one delivery (the channel's target is looked up then: a deleted channel is not delivered). */
  send(delivery: DeliveryProps, timeoutMs: number): Promise<ChannelAttempt>;
  // FailureStreak, by channel id: a channel whose every delivery failed for 3 days is disabled like a webhook.
}
