import { Injectable, OnModuleInit } from '@nestjs/common';
import { errorMessage } from '../../../shared/domain/error-message';
import { ChannelAttempt, ChannelEvent, ChannelSubscribers, WebhookSender } from '../../webhooks/application/ports';
import { WebhookDispatcher } from '../../webhooks/application/webhook-dispatcher';
import { DeliveryProps, messageId, newDelivery } from '../../webhooks/domain/webhook';
import { wants } from '../domain/channel';
import { EmailMessage, NtfyMessage, renderMessage, withoutInlineImage } from '../domain/message';
import { EventFactsReader } from './event-facts';
import { ChannelRepository, InlineImage, Mailer, MailPictures } from './ports';

/** A channel's delivery id: derived like a webhook's, so two instances emitting one event insert one row. */
export function messageIdForChannel(channelId: number, sourceId: string, eventType: string): string {
  return messageId(`channel-${channelId}`, sourceId, eventType);
}

/**
 * Channels as subscribers of the webhook events: the dispatcher hands every event it emits here, and each
 * channel that wants it gets a delivery whose body is its rendered message; sending goes through SMTP or an
 * HTTP POST (the webhooks' sender: URL policy on every attempt, pinned address, time limit). A target is
 * never logged, nor put into a delivery row.
 */
@Injectable()
export class ChannelNotifier implements ChannelSubscribers, OnModuleInit {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly facts: EventFactsReader,
    private readonly mailer: Mailer,
    private readonly pictures: MailPictures,
    private readonly http: WebhookSender,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  onModuleInit(): void {
    this.dispatcher.registerChannels(this);
  }

  listeningAccounts(): Promise<number[]> {
    return this.channels.accountsWithEnabled();
  }

  async deliveriesFor(event: ChannelEvent, now: Date): Promise<DeliveryProps[]> {
    const wanting = (await this.channels.enabledOf(event.accountId)).filter((c) => wants(c, event.type, event.websiteId, event.happenedAt));
    if (wanting.length === 0) return [];
    const data = await event.data();
    if (data === null) return []; // the screenshot was deleted before the event went out
    const facts = await this.facts.forEvent(event, data);
    return wanting.map((channel) =>
      newDelivery({
        id: messageIdForChannel(channel.id, event.sourceId, event.type),
        webhookId: null,
        channelId: channel.id,
        accountId: event.accountId,
        eventType: event.type,
        sourceId: event.sourceId,
        happenedAt: event.happenedAt,
        body: renderMessage(channel.type, facts),
        now,
      }),
    );
  }

  async send(delivery: DeliveryProps, timeoutMs: number): Promise<ChannelAttempt> {
    const channel = delivery.channelId === null ? null : await this.channels.findById(delivery.channelId);
    if (!channel) return { statusCode: null, error: 'the channel was deleted', delivered: false, skipped: true, wasFailing: false };
    if (!channel.enabled) return { statusCode: null, error: 'the channel is disabled', delivered: false, skipped: true, wasFailing: false };
    // The row just read for its target says whether its streak runs: a healthy channel's delivery then writes nothing.
    const wasFailing = channel.failingSince !== null;
    if (channel.type === 'email') {
      try {
        const { message, inline } = await this.withPicture(channel.accountId, JSON.parse(delivery.payload) as EmailMessage);
        await this.mailer.send(channel.target, message, timeoutMs, inline);
        return { statusCode: null, error: null, delivered: true, wasFailing };
      } catch (err) {
        return { statusCode: null, error: errorMessage(err), delivered: false, wasFailing };
      }
    }
    // ntfy's delivery holds its headers (Title, Click, Tags…) beside the text; the others are the JSON body itself.
    const { body, headers } = channel.type === 'ntfy' ? (JSON.parse(delivery.payload) as NtfyMessage) : { body: delivery.payload, headers: {} };
    const { statusCode, error } = await this.http.post(channel.target, body, headers, timeoutMs);
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    return { statusCode, error: delivered ? null : (error ?? `${channel.type} answered ${statusCode}`), delivered, wasFailing };
  }

  /**
   * The e-mail's picture, read from storage when it is sent (a delivery row holds no image); a screenshot deleted
   * meanwhile leaves the picture out of the HTML rather than show a broken image.
   */
  private async withPicture(accountId: number, message: EmailMessage): Promise<{ message: EmailMessage; inline?: InlineImage }> {
    if (!message.inline_image) return { message };
    const picture = await this.pictures.pictureOf(accountId, message.inline_image.screenshot_id);
    if (!picture) return { message: { ...message, html: withoutInlineImage(message.html) } };
    return { message, inline: { cid: message.inline_image.cid, ...picture } };
  }

  // The failure streak the dispatcher keeps (the 3-day rule it keeps for webhooks too).
  markHealthy(channelId: number): Promise<void> {
    return this.channels.markHealthy(channelId);
  }

  markFailing(channelId: number, now: Date): Promise<Date | null> {
    return this.channels.markFailing(channelId, now);
  }

  disable(channelId: number, reason: string, now: Date): Promise<boolean> {
    return this.channels.disable(channelId, reason, now);
  }
}
