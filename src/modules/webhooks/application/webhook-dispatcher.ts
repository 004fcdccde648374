import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { errorMessage } from '../../../shared/domain/error-message';
import type { Page, PageRequest } from '../../../shared/domain/page-request';
import { RateLimitExceededError } from '../../rate-limiting/domain/quota';
import { RateLimiter } from '../../rate-limiting/application/rate-limiter';
import {
  CHANGED_EVENT,
  DELIVERY_TIMEOUT_MS,
  DeliveryProps,
  FAILING_DISABLED_REASON,
  eventForJob,
  isWebhookEvent,
  messageId,
  newDelivery,
  retryAfter,
  signedHeaders,
  WebhookProps,
} from '../domain/webhook';
import { JobKinds } from '../../jobs/application/job-kinds';
import { FailureStreak, keepFailureStreak } from './failure-streak';
import { ChannelEvent, ChannelSubscribers, EventPayloads, EventSource, FinishedJob, WebhookRepository, WebhookSender } from './ports';

/** Jobs that ended longer ago than this are no longer announced (a worker down for a day does not replay it). */
const EMIT_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** An attempt holds its delivery this long: well past the send's own 10 s limit, so a live sender is never doubled. */
const ATTEMPT_LOCK_MS = 60_000;
const BATCH = 20;

/**
 * Turns finished jobs into deliveries and sends the deliveries that are due, in every worker process (ROLE all or
 * worker), every WEBHOOK_POLL_MS. Both steps are safe to run on any number of instances at once:
 * - emitting: a delivery's id is derived from (webhook, job, event), so two instances emitting the same job insert
 *   one row; the job is then marked emitted. A process that dies in between leaves the job unmarked, and the next
 *   pass emits it again (the insert is skipped), so no event is lost to a crash.
 * - sending: claimDue takes each delivery for one attempt (attempts + 1, held for a minute) in one statement, and
 *   the outcome is written only while that attempt still holds it: at least once, never the same attempt twice.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private channels: ChannelSubscribers | null = null;
  private readonly sources: EventSource[] = [];

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly payloads: EventPayloads,
    private readonly sender: WebhookSender,
    private readonly rateLimiter: RateLimiter,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly kinds: JobKinds,
  ) {}

  onApplicationBootstrap(): void {
    // A kind announcing an event this context does not know is a wiring mistake: refused at boot, not dropped later.
    for (const kind of this.kinds.all()) {
      for (const event of Object.values(kind.events ?? {})) {
        if (!isWebhookEvent(event)) throw new Error(`job kind ${kind.name} emits "${event}", which is no webhook event (WEBHOOK_EVENTS)`);
      }
    }
    if (this.config.role === 'api') return; // API-only instances leave the work to the workers
    this.timer = setInterval(() => this.nudge(), this.config.webhookPollMs);
    this.timer.unref();
  }

  // Before the database closes (its module shuts down in onApplicationShutdown): an attempt in flight is recorded.
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Notification channels subscribe to the same events through this (once, at boot). */
  registerChannels(channels: ChannelSubscribers): void {
    if (this.channels) throw new Error('notification channels are registered twice');
    this.channels = channels;
  }

  /** Another context's events (a batch's end) are read from it on every pass (once per source, at boot). */
  registerSource(source: EventSource): void {
    if (!isWebhookEvent(source.event)) throw new Error(`an event source emits "${source.event}", which is no webhook event (WEBHOOK_EVENTS)`);
    if (this.sources.some((known) => known.event === source.event)) throw new Error(`two event sources emit ${source.event}`);
    this.sources.push(source);
  }

  /** Queues deliveries made elsewhere (a channel's test message) and sends them at once. */
  async enqueue(deliveries: DeliveryProps[]): Promise<void> {
    await this.webhooks.insertDeliveries(deliveries);
    this.nudge();
  }

  /** A notification channel's deliveries, newest first (GET /notification-channels/{id}/deliveries, as a webhook's). */
  channelDeliveries(channelId: number, page: PageRequest): Promise<Page<DeliveryProps>> {
    return this.webhooks.listDeliveries({ channelId }, page);
  }

  /** Runs a pass now (or right after the one in progress); never overlaps itself. */
  nudge(): void {
    if (this.stopped || this.config.role === 'api') return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((err: unknown) => this.logger.warn(`webhook pass failed, retried on the next: ${errorMessage(err)}`))
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /** One emit-and-send pass; public for tests that drive it step by step. */
  async pass(): Promise<void> {
    await this.emit();
    await this.send();
  }

  private async emit(): Promise<void> {
    const now = this.clock.now();
    const since = new Date(now.getTime() - EMIT_LOOKBACK_MS);
    const channelAccounts = (await this.channels?.listeningAccounts()) ?? [];
    // Only the kinds that emit events are read (a render emits none): JobKind.events, from the jobs registry.
    const emitting = this.kinds.all().filter((kind) => kind.events !== null);
    for (const job of await this.webhooks.jobsToEmit(
      since,
      BATCH,
      emitting.map((kind) => kind.name),
      channelAccounts,
    )) {
      const event = eventForJob(this.kinds.kind(job.type)?.events, job.status);
      if (event === null) {
        await this.webhooks.markEmitted(job.id, now);
        continue;
      }
      const data = once(() => this.payloads.forJob(job, event));
      const subscribers = await this.webhooks.subscribers(job.accountId, event, job.finishedAt);
      const deliveries = subscribers.length > 0 ? subscribers.map(async (webhook) => this.delivery(webhook, job, event, await data(), now)) : [];
      await this.webhooks.insertDeliveries([
        ...(await Promise.all(deliveries)),
        ...(await this.forChannels(
          { type: event, sourceId: job.id, accountId: job.accountId, websiteId: job.websiteId, happenedAt: job.finishedAt, data },
          now,
        )),
      ]);
      await this.webhooks.markEmitted(job.id, now);
    }
    for (const change of await this.webhooks.changesToEmit(since, BATCH, channelAccounts)) {
      const subscribers = await this.webhooks.subscribers(change.accountId, CHANGED_EVENT, change.comparedAt);
      const sourceId = `screenshot-${change.screenshotId}`;
      const data = once(() => this.payloads.forChange(change));
      const forWebhooks = subscribers.length > 0 ? await data() : null;
      if (forWebhooks) {
        await this.webhooks.insertDeliveries(
          subscribers.map((webhook) =>
            newDelivery({
              id: messageId(webhook.id, sourceId, CHANGED_EVENT),
              webhookId: webhook.id,
              accountId: change.accountId,
              eventType: CHANGED_EVENT,
              sourceId,
              happenedAt: change.comparedAt,
              data: forWebhooks,
              now,
            }),
          ),
        );
      }
      await this.webhooks.insertDeliveries(
        await this.forChannels(
          { type: CHANGED_EVENT, sourceId, accountId: change.accountId, websiteId: change.websiteId, happenedAt: change.comparedAt, data },
          now,
        ),
      );
      await this.webhooks.markChangeEmitted(change.screenshotId, now);
    }
    await this.emitSources(since, now);
  }

  /** The events of the registered sources, as the changes: every subscribed webhook and channel, then marked. */
  private async emitSources(since: Date, now: Date): Promise<void> {
    for (const source of this.sources) {
      for (const found of await source.pending(since, BATCH)) {
        const subscribers = await this.webhooks.subscribers(found.accountId, source.event, found.happenedAt);
        const data = once(() => found.data());
        const forWebhooks = subscribers.length > 0 ? await data() : null;
        const deliveries = subscribers.map((webhook) =>
          newDelivery({
            id: messageId(webhook.id, found.sourceId, source.event),
            webhookId: webhook.id,
            accountId: found.accountId,
            eventType: source.event,
            sourceId: found.sourceId,
            happenedAt: found.happenedAt,
            data: forWebhooks,
            now,
          }),
        );
        const channelEvent = { type: source.event, sourceId: found.sourceId, accountId: found.accountId, websiteId: null, happenedAt: found.happenedAt, data };
        await this.webhooks.insertDeliveries([...deliveries, ...(await this.forChannels(channelEvent, now))]);
        await source.markEmitted(found.sourceId, now);
      }
    }
  }

  private async forChannels(event: ChannelEvent, now: Date): Promise<DeliveryProps[]> {
    return this.channels ? this.channels.deliveriesFor(event, now) : [];
  }

  private delivery(webhook: WebhookProps, job: FinishedJob, event: string, data: unknown, now: Date): DeliveryProps {
    const id = messageId(webhook.id, job.id, event);
    return newDelivery({ id, webhookId: webhook.id, accountId: job.accountId, eventType: event, sourceId: job.id, happenedAt: job.finishedAt, data, now });
  }

  private async send(): Promise<void> {
    const now = this.clock.now();
    const claimed = await this.webhooks.claimDue(now, new Date(now.getTime() + ATTEMPT_LOCK_MS), BATCH);
    // One read (and one secret decryption) per endpoint, however many of its deliveries are due.
    const ids = new Set(claimed.flatMap((d) => (d.webhookId === null ? [] : [d.webhookId])));
    const endpoints = new Map([...ids].map((id) => [id, this.webhooks.findById(id)]));
    await Promise.all(
      claimed.map(async (delivery) =>
        delivery.webhookId === null ? this.attemptChannel(delivery) : this.attempt(delivery, await endpoints.get(delivery.webhookId)!),
      ),
    );
  }

  /** A channel's delivery: the same rate limit, retries and fencing as a webhook's; the channel sends it its own way. */
  private async attemptChannel(delivery: DeliveryProps): Promise<void> {
    if (!this.channels) return; // not registered in this process (never in the app): left for one that has them
    if (!(await this.withinRate(delivery))) return;
    const started = Date.now();
    const { statusCode, error, delivered, skipped, wasFailing } = await this.channels.send(delivery, DELIVERY_TIMEOUT_MS);
    const at = this.clock.now();
    const recorded = await this.webhooks.recordAttempt(delivery, {
      statusCode,
      error: delivered ? null : (error ?? `endpoint answered ${statusCode}`),
      durationMs: Date.now() - started,
      at,
      delivered,
      // A disabled or deleted channel ends its deliveries at once, as a disabled webhook does: re-enabled later, it
      // does not send what was due while it was off.
      retryAt: delivered || skipped ? null : retryAfter(delivery.attempts, this.config.webhookRetryDelays, at),
    });
    if (!recorded || skipped || delivery.channelId === null) return; // taken over, or nothing was tried
    // As for a webhook, the streak as read for this attempt (the row send() loaded for the target).
    await this.keepStreak('notification channel', this.channels, delivery.channelId, delivered, at, wasFailing);
  }

  /** Deliveries have their own per-account limit; past it the attempt is given back, due when the window turns. */
  private async withinRate(delivery: DeliveryProps): Promise<boolean> {
    try {
      await this.rateLimiter.hitPerAddress('webhook', String(delivery.accountId), this.config.webhookLimitPerMinute, 'webhook deliveries');
      return true;
    } catch (err) {
      if (!(err instanceof RateLimitExceededError)) throw err;
      await this.webhooks.postpone(delivery, err.window.end);
      return false;
    }
  }

  private async attempt(delivery: DeliveryProps, webhook: WebhookProps | null): Promise<void> {
    const now = this.clock.now();
    if (!webhook) return; // deleted meanwhile: its deliveries went with it
    if (!webhook.enabled) {
      await this.webhooks.recordAttempt(delivery, { statusCode: null, error: 'webhook is disabled', durationMs: 0, at: now, delivered: false, retryAt: null });
      return;
    }
    if (!(await this.withinRate(delivery))) return;
    const started = Date.now();
    const headers = signedHeaders(webhook.secret, delivery.id, Math.floor(this.clock.now().getTime() / 1000), delivery.payload);
    const { statusCode, error } = await this.sender.post(webhook.url, delivery.payload, headers, DELIVERY_TIMEOUT_MS);
    const at = this.clock.now();
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const outcome = {
      statusCode,
      error: delivered ? null : (error ?? `endpoint answered ${statusCode}`),
      durationMs: Date.now() - started,
      at,
      delivered,
      retryAt: delivered ? null : retryAfter(delivery.attempts, this.config.webhookRetryDelays, at),
    };
    if (!(await this.webhooks.recordAttempt(delivery, outcome))) return; // taken over: that attempt's outcome counts
    await this.keepStreak('webhook', this.webhooks, webhook.id, delivered, at, webhook.failingSince !== null);
  }

  /** The 3-day rule (one for webhooks and channels); a disabled endpoint is named by id only, never its target. */
  private async keepStreak(kind: 'webhook' | 'notification channel', streak: FailureStreak, id: number, delivered: boolean, at: Date, wasFailing: boolean) {
    if (await keepFailureStreak(streak, id, { delivered, at, wasFailing })) this.logger.warn(`${kind} ${id} disabled: ${FAILING_DISABLED_REASON}`);
  }
}

/** A lazy value computed at most once (an event's data, read only if someone subscribes to it). */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | null = null;
  return () => (value ??= load());
}
