import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import type { PageRequest } from '../../../shared/domain/page-request';
import { UrlPolicy } from '../../../shared/url-policy';
import { DeliveryProps, newDelivery, newWebhookSecret, randomMessageId, TEST_EVENT, WEBHOOK_LIMITS, WebhookEvent, WebhookProps } from '../domain/webhook';
import { WebhookChanges, WebhookRepository } from './ports';
import { WebhookDispatcher } from './webhook-dispatcher';

/** Managing an account's webhook endpoints (the API's /webhooks routes). */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  async create(accountId: number, input: { url: string; events: WebhookEvent[]; description?: string | null }): Promise<WebhookProps> {
    const url = await this.checkUrl(input.url);
    const webhook = await this.webhooks.createWithinLimit(
      { accountId, url, events: dedupe(input.events), description: input.description ?? null, secret: newWebhookSecret(), createdAt: this.clock.now() },
      WEBHOOK_LIMITS.perAccount,
    );
    if (!webhook) throw ValidationFailedError.of('url', `an account can have at most ${WEBHOOK_LIMITS.perAccount} webhooks`);
    return webhook;
  }

  list(accountId: number, page: PageRequest) {
    return this.webhooks.list(accountId, page);
  }

  async get(accountId: number, id: number): Promise<WebhookProps> {
    const webhook = await this.webhooks.findOwned(accountId, id);
    if (!webhook) throw new NotFoundError('Webhook');
    return webhook;
  }

  async update(accountId: number, id: number, changes: WebhookChanges): Promise<WebhookProps> {
    await this.get(accountId, id);
    const checked: WebhookChanges = { ...changes };
    if (changes.url !== undefined) checked.url = await this.checkUrl(changes.url);
    if (changes.events !== undefined) checked.events = dedupe(changes.events);
    return this.webhooks.update(id, checked, this.clock.now());
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.webhooks.delete(id);
  }

  /** Queues a `webhook.test` event for the endpoint (delivered like any other, with retries). */
  async sendTest(accountId: number, id: number): Promise<DeliveryProps> {
    const webhook = await this.get(accountId, id);
    const now = this.clock.now();
    const messageId = randomMessageId();
    const delivery = newDelivery({
      id: messageId,
      webhookId: webhook.id,
      accountId,
      eventType: TEST_EVENT,
      sourceId: null,
      happenedAt: now,
      data: { webhook_id: webhook.id, message: 'A test event: your endpoint is reachable and can verify signatures.' },
      now,
    });
    await this.webhooks.insertDeliveries([delivery]);
    this.dispatcher.nudge();
    return delivery;
  }

  async deliveries(accountId: number, id: number, page: PageRequest) {
    await this.get(accountId, id);
    return this.webhooks.listDeliveries({ webhookId: id }, page);
  }

  /** The URL policy at the door, as for websites: private and metadata addresses are refused (422). */
  private async checkUrl(raw: string): Promise<string> {
    const verdict = await this.urlPolicy.check(raw);
    if (!verdict.allowed) throw ValidationFailedError.of('url', verdict.reason);
    return verdict.url.toString();
  }
}

function dedupe(events: WebhookEvent[]): WebhookEvent[] {
  return [...new Set(events)];
}
