import type { Readable } from 'node:stream';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, UnavailableError } from '../../../shared/domain/domain-error';
import { errorMessage } from '../../../shared/domain/error-message';
import { PeriodicTask } from '../../../shared/scheduling/periodic-task';
import { WebsiteRepository } from '../../websites/application/ports';
import { decideChange, IgnoredLines } from '../../websites/domain/change-conditions';
import type { WebsiteProps } from '../../websites/domain/website';
import { CHANGE_RULES, changedRatio } from '../domain/change';
import { diffKey, ScreenshotProps, textDiffKey, textKey } from '../domain/screenshot';
import { isTextChanged } from '../domain/text-change';
import { ImageDiffer, ScreenshotRepository, ScreenshotStorage, TextDiffer } from './ports';

/** A comparison is held this long by the worker doing it; one whose worker died is taken over after it. */
const CLAIM_MS = 60_000;
/** How often each worker looks for comparisons left pending (a worker killed mid-way, a restart). */
const SWEEP_EVERY_MS = 5_000;
const BATCH = 20;

/**
 * Compares each new capture with the previous comparable capture of its website (domain/change.ts), off the
 * request path: the capture job has ended (succeeded) before its comparison starts, and a comparison that fails
 * never touches the job. Right after a capture is stored, the worker that stored it compares it in the
 * background, one comparison at a time per process (they are CPU work, like captures); every worker also sweeps
 * for comparisons left pending. Each is claimed by compare-and-set for a minute and written only while pending,
 * so on any number of instances a comparison is done once, and a crash leaves it to the next sweep.
 */
@Injectable()
export class ChangeDetector implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeDetector');
  private readonly task = new PeriodicTask<number>((err) => this.logger.warn(`change sweep failed, retried in ${SWEEP_EVERY_MS} ms: ${errorMessage(err)}`));
  /** Comparisons of this process, one after another. */
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly screenshots: ScreenshotRepository,
    private readonly storage: ScreenshotStorage,
    private readonly differ: ImageDiffer,
    private readonly textDiffer: TextDiffer,
    private readonly websites: WebsiteRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    this.task.start(SWEEP_EVERY_MS, SWEEP_EVERY_MS, () => this.sweep());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.task.stop();
    await this.queue.catch(() => undefined);
  }

  /** A screenshot just stored: its comparison, if it has one pending, runs in the background (never awaited by the job). */
  compareSoon(shot: ScreenshotProps): void {
    if (shot.change?.status !== 'pending' || this.stopped) return;
    void this.enqueue(shot.id).catch((err: unknown) =>
      this.logger.warn(`screenshot ${shot.id}: comparison failed, retried by the sweep: ${errorMessage(err)}`),
    );
  }

  /** Compares every comparison left pending (and not held by another worker); returns how many this call did. */
  sweep(): Promise<number> {
    return this.task.exclusive(async () => {
      let done = 0;
      for (const id of await this.screenshots.pendingComparisons(this.clock.now(), BATCH)) {
        if (this.stopped) break;
        if (await this.enqueue(id)) done += 1;
      }
      return done;
    });
  }

  private enqueue(id: number): Promise<boolean> {
    const run = this.queue.catch(() => undefined).then(() => this.compare(id));
    this.queue = run;
    return run;
  }

  /** Claims, compares and records one comparison; false when another worker has it or did it. */
  async compare(id: number): Promise<boolean> {
    const now = this.clock.now();
    if (!(await this.screenshots.claimComparison(id, now, new Date(now.getTime() + CLAIM_MS)))) return false;
    const shot = await this.screenshots.findById(id);
    if (!shot) return false; // deleted meanwhile
    const pair = await this.loadPair(shot);
    if (!pair) {
      // Every earlier comparable capture is gone (deleted before the comparison ran): nothing to compare with.
      await this.screenshots.dropComparison(id);
      return true;
    }
    const website = await this.websites.findById(shot.websiteId);
    const started = performance.now();
    const pixels = await this.differ.compare(pair.newer, pair.older, { newer: shot.ignoreBoxes, older: pair.previous.ignoreBoxes });
    const ratio = changedRatio(pixels);
    const raw = await this.loadTexts(shot, pair.previous);
    // The website's conditions (change-conditions.ts): ignored lines leave the texts before they are diffed.
    const ignored = ignoredLinesOf(website);
    const texts = raw && { older: ignored.strip(raw.older), newer: ignored.strip(raw.newer) };
    const textDiff = texts && this.textDiffer.count(texts.older, texts.newer);
    const verdict = decideChange(
      {
        changedRatio: ratio,
        threshold: website?.changeThreshold ?? CHANGE_RULES.threshold.default,
        texts: raw,
        rawTextChanged: raw !== null && raw.older !== raw.newer,
        textChanged: textDiff !== null && isTextChanged(textDiff),
      },
      website?.alertWhen ?? {},
      ignored,
    );
    const changed = verdict.changed;
    // A change is what people open: its diffs are made before the comparison is recorded, so a recorded change
    // always has them, and they stay readable after the previous capture is deleted.
    if (changed) await this.storeDiff(shot, pair.previous, pair.newer, pair.older);
    if (texts && textDiff && isTextChanged(textDiff)) await this.storeTextDiff(shot, pair.previous, texts);
    const outcome = { previousId: pair.previous.id, changedRatio: ratio, changed, comparedAt: this.clock.now(), textDiff };
    if (!(await this.screenshots.recordComparison(id, outcome))) return false;
    this.logger.debug(
      `screenshot ${id} vs ${pair.previous.id}: ${ratio} changed${textDiff ? `, text +${textDiff.added} -${textDiff.removed}` : ''}${
        changed ? ' (a change)' : verdict.heldBack ? ` (not a change: ${verdict.heldBack})` : ''
      }, ${Math.round(performance.now() - started)} ms`,
    );
    return true;
  }

  /** Both captures' kept texts; null when either kept none (a PDF, a capture from before text changes). */
  private async loadTexts(shot: ScreenshotProps, previous: ScreenshotProps): Promise<{ older: string; newer: string } | null> {
    if (!shot.textHash || !previous.textHash) return null;
    const [newer, older] = await Promise.all([this.storage.read(textKey(shot.filePath)), this.storage.read(textKey(previous.filePath))]);
    if (!newer || !older) return null;
    return { newer: newer.toString('utf8'), older: older.toString('utf8') };
  }

  /** GET /screenshots/{id}/text: the visible text kept with the capture; 404 when none was kept. */
  async text(shot: ScreenshotProps): Promise<Buffer> {
    const stored = shot.textHash ? await this.storage.read(textKey(shot.filePath)) : null;
    if (!stored) throw NotFoundError.because('This screenshot kept no text (PDFs, scenario step shots and captures from before text changes keep none)');
    return stored;
  }

  /**
   * GET /screenshots/{id}/text-diff: the unified diff of the visible text against the compared capture. Made when
   * the text changed (and kept), else on request; 404 when there is no comparison, either capture kept no text, or
   * the previous capture was deleted before a diff was made.
   */
  async textDiff(shot: ScreenshotProps): Promise<Buffer> {
    if (!shot.change) throw NotFoundError.because('This screenshot has no previous capture to compare with, so it has no text diff');
    if (shot.change.status === 'pending') throw NotFoundError.because('The comparison with the previous capture is still running; try again in a moment');
    const stored = await this.storage.read(textDiffKey(shot.filePath));
    if (stored) return stored;
    const previous = await this.screenshots.findById(shot.change.previousId);
    const raw = previous ? await this.loadTexts(shot, previous) : null;
    // Made now: without the lines the website's ignore_text leaves out today.
    const ignored = raw && ignoredLinesOf(await this.websites.findById(shot.websiteId));
    const texts = raw && ignored && { older: ignored.strip(raw.older), newer: ignored.strip(raw.newer) };
    if (!previous || !texts) {
      throw NotFoundError.because(
        previous
          ? 'This screenshot or the one it was compared with kept no text'
          : `The previous capture (screenshot ${shot.change.previousId}) was deleted before a text diff was made; the counts stay in \`change\``,
      );
    }
    return this.storeTextDiff(shot, previous, texts);
  }

  /**
   * The first `maxBytes` of the text diff, and whether it goes on: a notification quotes only its first lines, so a
   * stored diff is streamed and left after the head. A diff not stored yet is made as textDiff() makes it (and kept).
   */
  async textDiffHead(shot: ScreenshotProps, maxBytes: number): Promise<{ head: Buffer; cut: boolean }> {
    if (shot.change && shot.change.status !== 'pending') {
      const stored = await readHead(this.storage.open(textDiffKey(shot.filePath)), maxBytes).catch(() => null); // none stored: made below
      if (stored) return stored;
    }
    const whole = await this.textDiff(shot);
    return { head: whole.subarray(0, maxBytes), cut: whole.length > maxBytes };
  }

  private async storeTextDiff(shot: ScreenshotProps, previous: ScreenshotProps, texts: { older: string; newer: string }): Promise<Buffer> {
    const patch = Buffer.from(
      this.textDiffer.unified(texts.older, texts.newer, { older: `screenshot ${previous.id}`, newer: `screenshot ${shot.id}` }),
      'utf8',
    );
    const key = textDiffKey(shot.filePath);
    await this.storage.put(key, patch);
    // As storeDiff: a delete that ran meanwhile removed the screenshot's files, this one must not outlive it.
    if (!(await this.screenshots.findById(shot.id))) await this.storage.delete(key);
    return patch;
  }

  /**
   * GET /screenshots/{id}/diff: made on the first request and kept beside the screenshot, so it stays readable
   * after the previous capture is deleted. 404 when there is nothing to compare with, or when the previous
   * capture was deleted before the diff was ever asked for.
   */
  async diff(shot: ScreenshotProps): Promise<Buffer> {
    if (!shot.change) throw NotFoundError.because('This screenshot has no previous capture to compare with, so it has no diff');
    const key = diffKey(shot.filePath);
    const stored = await this.storage.read(key);
    if (stored) return stored;
    const previous = await this.screenshots.findById(shot.change.previousId);
    const older = previous ? await this.storage.read(previous.filePath) : null;
    if (!previous || !older) {
      throw NotFoundError.because(
        `The previous capture (screenshot ${shot.change.previousId}) was deleted before a diff was made; the comparison stays in \`change\``,
      );
    }
    const newer = await this.storage.read(shot.filePath);
    if (!newer) throw NotFoundError.because('The screenshot file is missing');
    const png = await this.storeDiff(shot, previous, newer, older);
    if (!png) throw new UnavailableError('The diff could not be made; try again');
    return png;
  }

  /** Makes the diff and keeps it beside the screenshot; null (logged) when it cannot be made. */
  private async storeDiff(shot: ScreenshotProps, previous: ScreenshotProps, newer: Buffer, older: Buffer): Promise<Buffer | null> {
    let png: Buffer;
    try {
      png = await this.differ.diffImage(newer, older, { newer: shot.ignoreBoxes, older: previous.ignoreBoxes });
    } catch (err) {
      this.logger.warn(`screenshot ${shot.id}: making its diff failed: ${errorMessage(err)}`);
      return null;
    }
    const key = diffKey(shot.filePath);
    await this.storage.put(key, png);
    // A delete that ran meanwhile removed the screenshot's files: this one must not outlive it (as thumbnails).
    if (!(await this.screenshots.findById(shot.id))) await this.storage.delete(key);
    return png;
  }

  /** The previous capture recorded at insert, or, if it was deleted since, the newest earlier comparable one. */
  private async loadPair(shot: ScreenshotProps): Promise<{ previous: ScreenshotProps; newer: Buffer; older: Buffer } | null> {
    const newer = await this.storage.read(shot.filePath);
    if (!newer) return null;
    let previous = shot.change ? await this.screenshots.findById(shot.change.previousId) : null;
    previous ??= await this.screenshots.previousComparable(shot);
    while (previous) {
      const older = await this.storage.read(previous.filePath);
      if (older) return { previous, newer, older };
      previous = await this.screenshots.previousComparable(previous);
    }
    return null;
  }
}

/** The website's ignore_text, compiled once for a comparison (none for a website deleted meanwhile). */
function ignoredLinesOf(website: WebsiteProps | null): IgnoredLines {
  return new IgnoredLines(website?.ignoreText ?? []);
}

/** Up to `maxBytes` of a stream, which is then closed (an S3 body stops downloading). */
async function readHead(stream: Readable, maxBytes: number): Promise<{ head: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > maxBytes) break;
    }
  } finally {
    stream.destroy();
  }
  const all = Buffer.concat(chunks);
  return { head: all.subarray(0, maxBytes), cut: all.length > maxBytes };
}
