import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import type { PageRequest } from '../../../shared/domain/page-request';
import { UrlPolicy } from '../../../shared/url-policy';
import { WebhookDispatcher } from '../../webhooks/application/webhook-dispatcher';
import { messageIdForChannel } from './channel-notifier';
import { WebsitesService } from '../../websites/application/websites.service';
import { newDelivery, randomMessageId, type DeliveryProps } from '../../webhooks/domain/webhook';
import { CHANNEL_LIMITS, CHANNEL_TEST_EVENT, ChannelEvent, ChannelProps, ChannelType, emailProblem, LastDelivery, webhookUrlProblem } from '../domain/channel';
import { renderMessage } from '../domain/message';
import { ChannelChanges, ChannelRepository, Mailer } from './ports';
import { EventFactsReader } from './event-facts';

export interface ChannelInput {
  name: string;
  type: ChannelType;
  target: string;
  events: ChannelEvent[];
  websiteIds?: number[] | null;
}

/** Managing an account's notification channels (the API's /notification-channels routes and the dashboard page). */
@Injectable()
export class ChannelsService {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly websites: WebsitesService,
    private readonly urlPolicy: UrlPolicy,
    private readonly mailer: Mailer,
    private readonly dispatcher: WebhookDispatcher,
    private readonly facts: EventFactsReader,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async create(accountId: number, input: ChannelInput): Promise<ChannelProps> {
    const target = await this.checkTarget(input.type, input.target);
    const websiteIds = await this.checkWebsites(accountId, input.websiteIds ?? null);
    const created = await this.channels.createWithinLimit(
      {
        accountId,
        name: input.name.trim(),
        type: input.type,
        target,
        events: [...new Set(input.events)],
        websiteIds,
        createdAt: this.clock.now(),
      },
      CHANNEL_LIMITS.perAccount,
    );
    if (!created) throw ValidationFailedError.of('name', `an account can have at most ${CHANNEL_LIMITS.perAccount} notification channels`);
    return created;
  }

  list(accountId: number, page: PageRequest) {
    return this.channels.list(accountId, page);
  }

  async get(accountId: number, id: number): Promise<ChannelProps> {
    const channel = await this.channels.findOwned(accountId, id);
    if (!channel) throw new NotFoundError('Notification channel');
    return channel;
  }

  /** Partial. Changing `type` needs a `target` of the new type (the old one would not fit it). */
  async update(accountId: number, id: number, changes: ChannelChanges): Promise<ChannelProps> {
    const channel = await this.get(accountId, id);
    const checked: ChannelChanges = { ...changes };
    if (changes.type !== undefined && changes.type !== channel.type && changes.target === undefined) {
      throw ValidationFailedError.of('target', `target is required when type changes (a ${changes.type} target)`);
    }
    if (changes.target !== undefined) checked.target = await this.checkTarget(changes.type ?? channel.type, changes.target);
    if (changes.name !== undefined) checked.name = changes.name.trim();
    if (changes.events !== undefined) checked.events = [...new Set(changes.events)];
    if (changes.websiteIds !== undefined) checked.websiteIds = await this.checkWebsites(accountId, changes.websiteIds);
    return this.channels.update(id, checked, this.clock.now());
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.channels.delete(id);
  }

  /**
   * Before a website is linked to them (a monitor, API.md "Alerts people act on"): every id one of the account's
   * channels, and each able to name one more website. 422 naming `field` otherwise — another account's channel is
   * not found among yours, as website_ids are (ids in a body are 422, 404 is for the path's id).
   */
  async checkLinkable(accountId: number, ids: readonly number[], field: string): Promise<ChannelProps[]> {
    const unique = [...new Set(ids)];
    const found = await Promise.all(unique.map((id) => this.channels.findOwned(accountId, id)));
    const missing = unique.filter((_, i) => !found[i]);
    if (missing.length > 0) throw ValidationFailedError.of(field, `${field} must be ids of your notification channels (not found: ${missing.join(', ')})`);
    const channels = found as ChannelProps[];
    const full = channels.filter((c) => c.websiteIds !== null && c.websiteIds.length >= CHANNEL_LIMITS.websiteIdsMax);
    if (full.length > 0) {
      throw ValidationFailedError.of(
        field,
        `${full.map((c) => `channel ${c.id} (${c.name})`).join(', ')} already names ${CHANNEL_LIMITS.websiteIdsMax} websites, the most a channel can`,
      );
    }
    return channels;
  }

  /**
   * Links the website to these channels (checked by checkLinkable): a channel limited to some websites gets it added
   * in one conditional write; a channel for every website already covers it. 422 naming `field` when a channel
   * filled up (or was deleted) meanwhile.
   */
  async linkWebsite(channels: readonly ChannelProps[], websiteId: number, field: string): Promise<void> {
    for (const channel of channels) {
      if (channel.websiteIds === null) continue;
      if (!(await this.channels.addWebsite(channel.id, websiteId, CHANNEL_LIMITS.websiteIdsMax))) {
        throw ValidationFailedError.of(field, `channel ${channel.id} (${channel.name}) could not take the website: it was deleted or filled up meanwhile`);
      }
    }
  }

  /** Undoes linkWebsite (a monitor that could not be made whole): the website leaves the lists it was added to. */
  async unlinkWebsite(channels: readonly ChannelProps[], websiteId: number): Promise<void> {
    for (const channel of channels)
      if (channel.websiteIds !== null && !channel.websiteIds.includes(websiteId)) await this.channels.removeWebsite(channel.id, websiteId);
  }

  /** Queues a test message to the channel, delivered (and retried) like any other. */
  async sendTest(accountId: number, id: number): Promise<DeliveryProps> {
    const channel = await this.get(accountId, id);
    const now = this.clock.now();
    const delivery = newDelivery({
      id: messageIdForChannel(channel.id, randomMessageId(), CHANNEL_TEST_EVENT),
      webhookId: null,
      channelId: channel.id,
      accountId,
      eventType: CHANNEL_TEST_EVENT,
      sourceId: null,
      happenedAt: now,
      body: renderMessage(channel.type, await this.facts.forTest(accountId, channel.websiteIds, now)),
      now,
    });
    await this.dispatcher.enqueue([delivery]);
    return delivery;
  }

  /** The channel's messages, newest first, with their attempts and last answer (as a webhook's deliveries). */
  async deliveries(accountId: number, id: number, page: PageRequest) {
    await this.get(accountId, id);
    return this.dispatcher.channelDeliveries(id, page);
  }

  lastDeliveries(channelIds: number[]): Promise<Map<number, LastDelivery>> {
    return this.channels.lastDeliveries(channelIds);
  }

  /**
   * E-mail: an address, and SMTP configured. Slack / Discord: their incoming-webhook hosts (or an origin the
   * operator allowlisted), then the URL policy exactly as for webhooks (422 with its reason).
   */
  private async checkTarget(type: ChannelType, raw: string): Promise<string> {
    const target = raw.trim();
    if (type === 'email') {
      const problem = emailProblem(target);
      if (problem) throw ValidationFailedError.of('target', problem);
      if (!this.mailer.configured) throw ValidationFailedError.of('type', 'e-mail channels need SMTP_URL set on the server');
      return target;
    }
    const problem = webhookUrlProblem(type, target, this.config.urlAllowlist);
    if (problem) throw ValidationFailedError.of('target', problem);
    const verdict = await this.urlPolicy.check(target);
    if (!verdict.allowed) throw ValidationFailedError.of('target', verdict.reason);
    return verdict.url.toString();
  }

  /** Every id must be one of the account's websites: 422 naming the others (as scenarios' website_id). */
  private async checkWebsites(accountId: number, ids: number[] | null): Promise<number[] | null> {
    if (ids === null || ids.length === 0) return null;
    const unique = [...new Set(ids)];
    const missing: number[] = [];
    for (const id of unique) if (!(await this.websites.find(accountId, id))) missing.push(id);
    if (missing.length > 0) throw ValidationFailedError.of('website_ids', `website_ids must be ids of your websites (not found: ${missing.join(', ')})`);
    return unique;
  }
}
