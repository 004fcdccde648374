import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { errorMessage } from '../../../shared/domain/error-message';
import type { ChannelEvent } from '../../webhooks/application/ports';
import { WebsitesService } from '../../websites/application/websites.service';
import { CHANNEL_TEST_EVENT } from '../domain/channel';
import { type EventFacts, FIRST_LINES } from '../domain/message';
import { ChangedTextLines } from './ports';

/** The parts of an event's `data` (the API's own views, as webhooks get them) that a message uses. */
interface ScreenshotData {
  id: number;
  website_id: number;
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

/**
 * The dashboard link to a screenshot's image (the dashboard asks the viewer to sign in). The one place to change
 * when images get signed links (issue 30), so a message's image opens without a session.
 */
export function imageLinkFor(base: string, screenshotId: number): string {
  return `${base}/dashboard/screenshots/${screenshotId}/image`;
}

/** Reads what a message says out of an event: the website's name and URL, what happened, and dashboard links. */
@Injectable()
export class EventFactsReader {
  constructor(
    private readonly websites: WebsitesService,
    private readonly config: AppConfig,
    private readonly changedLines: ChangedTextLines,
  ) {}

  private readonly log = new Logger(EventFactsReader.name);

  /** The dashboard's address: PUBLIC_URL, else where this server listens (fine on one machine, set PUBLIC_URL otherwise). */
  private get base(): string {
    return this.config.publicUrl ?? `http://localhost:${this.config.port}`;
  }

  async forEvent(event: ChannelEvent, raw: unknown): Promise<EventFacts> {
    const data = (raw ?? {}) as EventData;
    const website = event.websiteId !== null ? await this.websites.find(event.accountId, event.websiteId) : null;
    const shot = data.screenshot ?? null;
    const lastShotId = data.execution?.screenshot_ids.at(-1) ?? null;
    const shotId = shot?.id ?? lastShotId;
    const base = this.base;
    const textDiff = shot?.change?.text_diff ?? null;
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
      links: {
        compare: event.type === 'screenshot.changed' && shotId !== null ? `${base}/dashboard/screenshots/${shotId}/compare` : null,
        screenshot: shotId !== null ? `${base}/dashboard/screenshots/${shotId}` : null,
        image: shotId !== null ? imageLinkFor(base, shotId) : null,
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

  forTest(): EventFacts {
    return {
      event: CHANNEL_TEST_EVENT,
      websiteName: null,
      url: null,
      changedRatio: null,
      textDiff: null,
      error: null,
      links: { compare: null, screenshot: null, image: null, job: `${this.base}/dashboard/notifications` },
    };
  }
}
