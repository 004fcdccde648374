import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { InvalidSignatureError } from '../../render-keys/domain/render-key';
import { SystemLinks } from '../../render-keys/application/system-links';
import { ALERT_LINK_VIEWS, type AlertLinkView } from '../domain/alert-link';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What an alert link opens, once its signature and expiry were checked. */
export interface OpenedAlertLink {
  accountId: number;
  screenshotId: number;
  view: AlertLinkView;
  /** When the link stops opening: the links a compare page shows expire with it. */
  expires: Date;
}

/**
 * The links in notifications that open without a dashboard session (issue 46): a screenshot's image, its diff and
 * its compare page, as `/links?screenshot=<id>&view=<image|diff|compare>&access_key=…&expires=…&signature=…`,
 * signed with the account's system key through the render-key signer (SystemLinks) and valid ALERT_LINK_DAYS
 * (30) days from the event. The signature covers the screenshot and the view, so neither can be changed; the
 * screenshot is read within the key's account, so a link never opens another account's data.
 */
@Injectable()
export class AlertLinks {
  constructor(
    private readonly links: SystemLinks,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** Where links point: PUBLIC_URL, else where this server listens (right only on this machine; the dashboard warns). */
  get base(): string {
    return this.config.publicUrl ?? `http://localhost:${this.config.port}`;
  }

  /** When a link made at `from` stops opening. */
  expiryFrom(from: Date): Date {
    return new Date(from.getTime() + this.config.alertLinkDays * DAY_MS);
  }

  /** The path and query of a link (`/links?…`), valid until `expires`. */
  async pathFor(accountId: number, screenshotId: number, view: AlertLinkView, expires: Date): Promise<string> {
    return `/links?${await this.links.sign(accountId, 'alert_links', `screenshot=${screenshotId}&view=${view}`, expires)}`;
  }

  /** The absolute link (PUBLIC_URL), valid ALERT_LINK_DAYS from `from` (the event's time). */
  async linkFor(accountId: number, screenshotId: number, view: AlertLinkView, from: Date): Promise<string> {
    return `${this.base}${await this.pathFor(accountId, screenshotId, view, this.expiryFrom(from))}`;
  }

  /** A link's raw query (as sent) → what it opens; 403 `invalid_signature` or `link_expired` otherwise. */
  async open(rawQuery: string): Promise<OpenedAlertLink> {
    const { accountId, params } = await this.links.authenticate(rawQuery, 'alert_links', this.clock.now());
    const screenshot = params.getAll('screenshot');
    const view = params.getAll('view');
    // Signed by this service, so well formed; checked anyway, as a link the service did not make is refused.
    if (
      screenshot.length !== 1 ||
      !/^[1-9][0-9]{0,15}$/.test(screenshot[0]) ||
      view.length !== 1 ||
      !(ALERT_LINK_VIEWS as readonly string[]).includes(view[0])
    ) {
      throw new InvalidSignatureError('This link does not name a screenshot');
    }
    return { accountId, screenshotId: Number(screenshot[0]), view: view[0] as AlertLinkView, expires: new Date(Number(params.get('expires')) * 1000) };
  }
}
