import type { Page, PageRequest } from '../../../shared/domain/page-request';
import type { ChannelEvent, ChannelProps, ChannelType, LastDelivery } from '../domain/channel';
import type { EmailMessage } from '../domain/message';

export interface NewChannel {
  accountId: number;
  name: string;
  type: ChannelType;
  target: string;
  events: ChannelEvent[];
  websiteIds: number[] | null;
  createdAt: Date;
}

export interface ChannelChanges {
  name?: string;
  type?: ChannelType;
  target?: string;
  events?: ChannelEvent[];
  websiteIds?: number[] | null;
  enabled?: boolean;
}

export abstract class ChannelRepository {
  /** Creates the channel unless the account already has `limit` (null then): atomic, whatever runs concurrently. */
  abstract createWithinLimit(channel: NewChannel, limit: number): Promise<ChannelProps | null>;
  abstract findOwned(accountId: number, id: number): Promise<ChannelProps | null>;
  abstract findById(id: number): Promise<ChannelProps | null>;
  abstract list(accountId: number, page: PageRequest): Promise<Page<ChannelProps>>;
  abstract update(id: number, changes: ChannelChanges, now: Date): Promise<ChannelProps>;
  /**
   * Adds the website to a channel limited to some websites, in one conditional write (concurrent monitors linking
   * the same channel each keep theirs): true when the channel now names it (added, or named already) or names no
   * websites (every website: nothing to add); false when its list is full (`max`) or the channel is gone.
   */
  abstract addWebsite(id: number, websiteId: number, max: number): Promise<boolean>;
  /** Takes the website out of the channel's list, unless it is the list's only entry (an empty list would mean every website). */
  abstract removeWebsite(id: number, websiteId: number): Promise<void>;
  /** Deletes the channel; its deliveries go with it (foreign key). */
  abstract delete(id: number): Promise<void>;
  /** The account's enabled channels. */
  abstract enabledOf(accountId: number): Promise<ChannelProps[]>;
  /** Accounts that have at least one enabled channel. */
  abstract accountsWithEnabled(): Promise<number[]>;
  /** Delivered: the channel's failure streak ends (a no-op when it had none). */
  abstract markHealthy(id: number): Promise<void>;
  /** Failed attempt: failing since then (if not already); returns when it started failing. */
  abstract markFailing(id: number, now: Date): Promise<Date | null>;
  /** Disabled by the service (an enabled channel only), with the reason and the time; whether this call disabled it. */
  abstract disable(id: number, reason: string, now: Date): Promise<boolean>;
  /** The newest delivery of each of these channels. */
  abstract lastDeliveries(channelIds: number[]): Promise<Map<number, LastDelivery>>;
}

/** A picture carried inside an e-mail, shown by the HTML as `cid:<cid>`. */
export interface InlineImage {
  cid: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

/** E-mail leaves through SMTP (SMTP_URL, sender MAIL_FROM). */
export abstract class Mailer {
  /** Whether SMTP_URL is set: without it no e-mail channel can be created. */
  abstract get configured(): boolean;
  /** Sends one message; throws with the server's answer when it is refused or cannot be sent in time. */
  abstract send(to: string, message: EmailMessage, timeoutMs: number, inline?: InlineImage): Promise<void>;
}

/**
 * The picture of a screenshot as an e-mail carries it: the top of the page, at most 1280 × 1600 px (a mail is no
 * place for a 20,000 px full page; the signed image link opens the whole). The screenshots context has the file.
 */
export abstract class MailPictures {
  /** null when the screenshot (or its file) is gone, or it is no picture. */
  abstract pictureOf(accountId: number, screenshotId: number): Promise<{ content: Buffer; contentType: string; filename: string } | null>;
}

/**
 * The first changed lines of a screenshot's text diff (`+ line` / `- line`), which a `screenshot.changed` message
 * quotes. The screenshots context answers it (it owns the diff; adapter in infrastructure/); internal to messages, never in a payload.
 */
export abstract class ChangedTextLines {
  /** At most `max` lines; rejects when the screenshot or its diff is gone (the message then quotes none). */
  abstract firstLines(accountId: number, screenshotId: number, max: number): Promise<string[]>;
}
