import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { PageRequest } from '../../../shared/domain/page-request';
import { Account } from '../../accounts/domain/account';
import { PlanUpgradeRequiredError } from '../../accounts/domain/errors';
import { WebsiteRepository } from '../../websites/application/ports';
import { WebsitesService } from '../../websites/application/websites.service';
import { downloadFileName, ScreenshotProps, websiteArea, zipEntryName } from '../domain/screenshot';
import { firstChangedLines, TEXT_RULES } from '../domain/text-change';
import { THUMBNAIL } from '../domain/thumbnail';
import { JobRepository } from '../../jobs/application/ports';
import { ScreenshotFilter, ScreenshotRepository, ScreenshotStorage, ZipWriter } from './ports';
import { openedFile } from './opened-file';
import { ScreenshotKeeper } from './screenshot-keeper';
import { ChangeDetector } from './change-detector';

export interface ScreenshotDownload {
  fileName: string;
  /** The media type of the screenshot's format. */
  contentType: string;
  etag: string;
  size: number;
  stream: Readable;
}

/** A screenshot's thumbnail (domain/thumbnail.ts), small enough to hand over whole. */
export interface ScreenshotThumbnail {
  data: Buffer;
  contentType: string;
  etag: string;
  size: number;
}

/** A kept text or text diff, answered as text/plain (UTF-8) with a strong validator. */
export type ScreenshotText = ScreenshotThumbnail;

function textAnswer(data: Buffer, etag: string): ScreenshotText {
  return { data, contentType: 'text/plain; charset=utf-8', etag, size: data.length };
}

/** Spec, Limits 6: Bulk Download is available only on Pro and Business plans (403 `plan_upgrade_required`). */
export function assertBulkDownloadAllowed(account: Account): void {
  if (!account.allowsBulkDownload()) throw new PlanUpgradeRequiredError(account.plan, 'Bulk download');
}

@Injectable()
export class ScreenshotsService implements OnModuleInit {
  private readonly logger = new Logger('Screenshots');

  constructor(
    private readonly screenshots: ScreenshotRepository,
    private readonly jobs: JobRepository,
    private readonly storage: ScreenshotStorage,
    private readonly zip: ZipWriter,
    private readonly store: ScreenshotKeeper,
    private readonly websites: WebsiteRepository,
    private readonly websitesService: WebsitesService,
    private readonly clock: Clock,
    private readonly changes: ChangeDetector,
  ) {}

  onModuleInit(): void {
    // Deleting a website takes its queued jobs and its screenshot files with it (rows go by foreign-key cascade).
    this.websitesService.onDelete(async (website) => {
      await this.jobs.cancelQueuedForWebsite(website.id, 'Website was deleted', this.clock.now());
    });
    // The files go once the row is gone, as one folder: a capture that stored its screenshot a moment before
    // the delete left files no listing taken earlier would know of, and none can be stored after it.
    this.websitesService.onDeleted((website) => this.storage.deleteArea(websiteArea(website.accountId, website.id)));
  }

  async list(accountId: number, page: PageRequest, filter: ScreenshotFilter) {
    return this.screenshots.list(accountId, page, filter);
  }

  async get(accountId: number, id: number): Promise<ScreenshotProps> {
    const shot = await this.screenshots.findOwned(accountId, id);
    if (!shot) throw new NotFoundError('Screenshot');
    return shot;
  }

  /** The stored file, once the store has answered for it (openedFile: a gone file is 404, a store away 503, before any header). */
  async download(accountId: number, id: number): Promise<ScreenshotDownload> {
    const shot = await this.get(accountId, id);
    const website = await this.websites.findById(shot.websiteId);
    // Opened last: nothing after it can fail and leave the file open.
    const stream = await openedFile(this.storage, shot.filePath, 'Screenshot file', this.logger);
    return {
      fileName: downloadFileName(website?.name ?? 'screenshot', shot.id, shot.format),
      contentType: FORMAT_FILES[shot.format].mimeType,
      // Screenshots never change once stored, so id + size is a strong validator.
      etag: `"ss-${shot.id}-${shot.fileSize}"`,
      size: shot.fileSize,
      stream,
    };
  }

  /**
   * The screenshot's thumbnail, made from its PNG on the first request when it has none yet. Another
   * account's id is not found, exactly like get().
   */
  async thumbnail(accountId: number, id: number): Promise<ScreenshotThumbnail> {
    const shot = await this.get(accountId, id);
    const data = await this.store.thumbnail(shot);
    if (!data) throw new NotFoundError('Screenshot file');
    // A content hash: a strong validator even if the thumbnail is ever made again with other bytes.
    const digest = createHash('sha256').update(data).digest('base64url').slice(0, 22);
    return { data, contentType: THUMBNAIL.contentType, etag: `"th-${shot.id}-${digest}"`, size: data.length };
  }

  /**
   * Bulk Download: the account's screenshots as one streamed ZIP; every id must exist and be the caller's (else 404 with
   * the missing ids). Each file is opened when the ZIP reaches it, so the archive streams file by file.
   */
  async zipArchive(account: Account, ids: number[]): Promise<Readable> {
    assertBulkDownloadAllowed(account);
    const unique = [...new Set(ids)];
    const found = await this.screenshots.findOwnedMany(account.id, unique);
    const byId = new Map(found.map((s) => [s.id, s]));
    const present = await Promise.all(found.map(async (s) => ((await this.storage.exists(s.filePath)) ? s.id : null)));
    const missing = unique.filter((id) => !byId.has(id) || !present.includes(id));
    if (missing.length) throw new NotFoundError(`Screenshots ${missing.join(', ')}`, { missing_ids: missing });
    const names = new Map<number, string>();
    for (const s of found) if (!names.has(s.websiteId)) names.set(s.websiteId, (await this.websites.findById(s.websiteId))?.name ?? 'website');
    const entries = unique.map((id) => {
      const shot = byId.get(id) as ScreenshotProps;
      return { name: zipEntryName(names.get(shot.websiteId) ?? 'website', id, shot.format), open: () => this.storage.open(shot.filePath) };
    });
    return this.zip.stream(entries);
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.store.remove(await this.get(accountId, id));
  }

  /** GET /screenshots/{id}/diff: the PNG of what changed since the previous comparable capture (ChangeDetector.diff). */
  async diff(accountId: number, id: number): Promise<ScreenshotThumbnail> {
    const shot = await this.get(accountId, id);
    const data = await this.changes.diff(shot);
    const digest = createHash('sha256').update(data).digest('base64url').slice(0, 22);
    return { data, contentType: 'image/png', etag: `"df-${shot.id}-${digest}"`, size: data.length };
  }

  /** GET /screenshots/{id}/text: the page's visible text kept with the capture (text changes). */
  async text(accountId: number, id: number): Promise<ScreenshotText> {
    const shot = await this.get(accountId, id);
    return textAnswer(await this.changes.text(shot), `"tx-${shot.id}-${shot.textHash ?? ''}"`);
  }

  /** GET /screenshots/{id}/text-diff: the unified diff of that text against the compared capture's. */
  async textDiff(accountId: number, id: number): Promise<ScreenshotText> {
    const shot = await this.get(accountId, id);
    const data = await this.changes.textDiff(shot);
    return textAnswer(data, `"td-${shot.id}-${createHash('sha256').update(data).digest('base64url').slice(0, 22)}"`);
  }

  /**
   * The first changed lines of the text diff GET /screenshots/{id}/text-diff answers, as `+ line` / `- line`,
   * reading at most TEXT_RULES.previewBytes of it. Another account's id is not found, as in get().
   */
  async firstChangedTextLines(accountId: number, id: number, max: number): Promise<string[]> {
    const shot = await this.get(accountId, id);
    const { head, cut } = await this.changes.textDiffHead(shot, TEXT_RULES.previewBytes);
    return firstChangedLines(head.toString('utf8'), max, cut);
  }

  /** GET /websites/{id}/changes: the website's captures whose comparison found a change, newest first. */
  async changesOf(accountId: number, websiteId: number, page: PageRequest) {
    await this.websitesService.get(accountId, websiteId); // another account's website is 404
    return this.screenshots.listChanges(accountId, websiteId, page);
  }
}
