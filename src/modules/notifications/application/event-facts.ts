import { Injectable, Logger } from '@nestjs/common';
import { isImageFormat } from '../../../shared/domain/output-format';
import { errorMessage } from '../../../shared/domain/error-message';
import type { ChannelEvent } from '../../webhooks/application/ports';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { WebsitesService } from '../../websites/application/websites.service';
import type { AlertLinkView } from '../domain/alert-link';
import { AlertLinks } from './alert-links';
import { CHANNEL_TEST_EVENT } from '../domain/channel';
import { type EventFacts, FIRST_LINES } from '../domain/message';
import { ChangedTextLines } from './ports';

/** The parts of an event's `data` (the API's own views, as webhooks get them) that a message uses. */
interface ScreenshotData {
  id: number;
  website_id: number;
  format?: string;
  capture?: { final_url?: string | null; warnings?: Array<{ code: string; detail: string }> } | null;
  change?: { changed_ratio?: number | null; text_diff?: { added: number; removed: number } | null } | null;
}
interface EventData {
  job?: { id: string; website_id: number | null; error: string | null };
  screenshot?: ScreenshotData | null;
  execution?: { id: string; error: string | null; screenshot_ids: number[] };
  screenshot_id?: number;
  changed_ratio?: number;
  batch?: { name: string | null; total: number; counts: { succeeded: number; failed: number; cancelled: number } };
}

/** Reads what a message says out of an event: the website's name and URL, what happened, and its links. */
@Injectable()
export class EventFactsReader {
  constructor(
    private readonly websites: WebsitesService,
    private readonly screenshots: ScreenshotsService,
    private readonly alertLinks: AlertLinks,
    private readonly changedLines: ChangedTextLines,
  ) {}

  private readonly log = new Logger(EventFactsReader.name);

  async forEvent(event: ChannelEvent, raw: unknown): Promise<EventFacts> {
    const data = (raw ?? {}) as EventData;
    const website = event.websiteId !== null ? await this.websites.find(event.accountId, event.websiteId) : null;
    const shot = data.screenshot ?? null;
    const lastShotId = data.execution?.screenshot_ids.at(-1) ?? null;
    const shotId = shot?.id ?? lastShotId;
    const base = this.alertLinks.base;
    const textDiff = shot?.change?.text_diff ?? null;
    const changed = event.type === 'screenshot.changed' && shotId !== null;
    // A PDF or page content (HTML, markdown…) has no image to show; a scenario's last shot is always a picture.
    const pictured = shotId !== null && (shot?.format === undefined || isImageFormat(shot.format));
    const signed = (view: AlertLinkView) => this.alertLinks.linkFor(event.accountId, shotId!, view, event.happenedAt);
    const batch = data.batch ? { name: data.batch.name, total: data.batch.total, ...data.batch.counts } : null;
    return {
      batch,
      event: event.type,
      websiteName: website?.name ?? null,
      url: shot?.capture?.final_url ?? website?.url ?? null,
      changedRatio: data.changed_ratio ?? shot?.change?.changed_ratio ?? null,
      textDiff:
        textDiff && shot && event.type === 'screenshot.changed'
          ? { added: textDiff.added, removed: textDiff.removed, firstLines: await this.firstLines(event.accountId, shot.id, textDiff) }
          : null,
      error: data.job?.error ?? data.execution?.error ?? null,
      warnings: (shot?.capture?.warnings ?? []).map((w) => w.detail).filter((detail) => typeof detail === 'string'),
      inlineImage: pictured ? shotId : null,
      links: {
        compare: changed ? await signed('compare') : null,
        screenshot: shotId !== null ? `${base}/dashboard/screenshots/${shotId}` : null,
        image: pictured ? await signed('image') : null,
        diff: changed && pictured ? await signed('diff') : null,
        job: data.job ? `${base}/dashboard/jobs/${data.job.id}` : data.execution ? `${base}/dashboard/executions/${data.execution.id}` : null,
      },
    };
  }

  /** The diff's first changed lines; a message without them beats no message (the diff was deleted meanwhile). */
  private async firstLines(accountId: number, screenshotId: number, counts: { added: number; removed: number }): Promise<string[]> {
    if (counts.added + counts.removed === 0) return [];
    try {
      return await this.changedLines.firstLines(accountId, screenshotId, FIRST_LINES);
    } catch (err) {
      this.log.warn(`screenshot ${screenshotId}: no changed lines for the message (${errorMessage(err)})`);
      return [];
    }
  }

  /**
   * A test message shows what a real one looks like: the account's newest capture (of the channel's websites, when
   * it has some) with its image, its screenshot page and its job, each link opening what it names. Without any
   * capture it says so, and links the Alerts page as what it is.
   */
  async forTest(accountId: number, websiteIds: number[] | null, now: Date): Promise<EventFacts> {
    const shot = await this.newestCapture(accountId, websiteIds);
    const base = this.alertLinks.base;
    const facts: EventFacts = {
      event: CHANNEL_TEST_EVENT,
      websiteName: null,
      url: null,
      changedRatio: null,
      textDiff: null,
      error: null,
      inlineImage: null,
      links: { compare: null, screenshot: null, image: null, diff: null, job: null, alerts: `${base}/dashboard/notifications` },
    };
    if (!shot) return facts;
    const website = await this.websites.find(accountId, shot.websiteId);
    const pictured = isImageFormat(shot.format);
    return {
      ...facts,
      example: { websiteName: website?.name ?? null, takenAt: shot.takenAt },
      url: website?.url ?? null,
      inlineImage: pictured ? shot.id : null,
      links: {
        ...facts.links,
        screenshot: `${base}/dashboard/screenshots/${shot.id}`,
        image: pictured ? await this.alertLinks.linkFor(accountId, shot.id, 'image', now) : null,
        job: shot.jobId ? `${base}/dashboard/jobs/${shot.jobId}` : shot.executionId ? `${base}/dashboard/executions/${shot.executionId}` : null,
      },
    };
  }

  private async newestCapture(accountId: number, websiteIds: number[] | null) {
    const lists = websiteIds?.length ? websiteIds.map((websiteId) => ({ websiteId })) : [{}];
    const found = await Promise.all(lists.map((filter) => this.screenshots.list(accountId, { page: 1, perPage: 1 }, filter)));
    return found.flatMap((page) => page.items).sort((a, b) => b.id - a.id)[0] ?? null;
  }
}
