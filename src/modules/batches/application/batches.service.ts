import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { outputConflicts, pageOptionConflicts, resolveOutput, viewportFieldsSet } from '../../../shared/domain/capture-option-rules';
import type { CaptureOptions } from '../../../shared/domain/capture-option-table';
import { mergeSecrets, secretConflicts } from '../../../shared/domain/capture-secrets';
import { NotFoundError, UnavailableError, ValidationFailedError } from '../../../shared/domain/domain-error';
import type { FieldError } from '../../../shared/domain/domain-error';
import { errorMessage } from '../../../shared/domain/error-message';
import type { Page, PageRequest } from '../../../shared/domain/page-request';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { sealedSecrets } from '../../../shared/secrets/sealed-secrets';
import { UrlPolicy } from '../../../shared/url-policy';
import type { Account } from '../../accounts/domain/account';
import { planBatchSize } from '../../accounts/domain/plan';
import { JobsService } from '../../jobs/application/jobs.service';
import { JobRepository } from '../../jobs/application/ports';
import type { JobProps } from '../../jobs/domain/job';
import { ScreenshotStorage, ZipWriter } from '../../screenshots/application/ports';
import { BatchItemProps, BatchProps, batchEntryName, CANCELLED_ERROR, type StoredItemStatus } from '../domain/batch';
import type { BatchItemJobOptions } from '../domain/batch-item-job';
import { BATCH_ITEM_JOB_KIND } from './batch-item-job-kind';
import { BatchProgress } from './batch-progress';
import { BatchRepository } from './ports';

/** One URL of a request, with the options it sets itself and where it came from in the body (`urls[2]`, `items[3]`). */
export interface BatchItemInput {
  url: string;
  options: CaptureOptions;
  /** `urls[2]` or `items[3]`: how errors name it. */
  field: string;
  /** Where the URL sits: `urls[2]` itself, or `items[3].url`. */
  urlField: string;
}

export interface BatchInput {
  name: string | null;
  /** Which list the body used (`urls` or `items`), for errors about the list as a whole. */
  list: 'urls' | 'items';
  items: BatchItemInput[];
  shared: CaptureOptions;
}

/** URL policy checks (DNS lookups) run this many at once when a batch is asked for. */
const URL_CHECKS_AT_ONCE = 16;

/** The item's own options over the batch's shared ones (secrets merged field by field, the item's first). */
function itemOptions(shared: CaptureOptions, own: CaptureOptions): CaptureOptions {
  const defined = Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined)) as CaptureOptions;
  const merged: CaptureOptions = { ...shared, ...defined };
  const secrets = mergeSecrets(own.secrets, shared.secrets);
  if (Object.keys(secrets).length > 0) merged.secrets = secrets;
  else delete merged.secrets;
  return merged;
}

/** `viewport_width` → `items[3].viewport_width` (an option's error, named where the item is). */
function under(prefix: string, errors: FieldError[]): FieldError[] {
  return errors.map((e) => ({ field: `${prefix}.${e.field}`, message: e.message }));
}

async function mapLimited<T, R>(list: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      out[i] = await run(list[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, list.length) }, worker));
  return out;
}

/**
 * Batches (docs/batches.md): many URLs in one request, as an aggregate over ordinary jobs. Every item is checked
 * like Take Screenshot / render checks its options and URL, all before anything is written (one bad item: 422 and
 * nothing created); then the batch and its items are written in one transaction and each item becomes a
 * `batch_item` job submitted at batch priority, so it takes the account's fair slots like any capture.
 */
@Injectable()
export class BatchesService {
  private readonly logger = new Logger('Batches');

  constructor(
    private readonly batches: BatchRepository,
    private readonly jobs: JobsService,
    private readonly jobRows: JobRepository,
    private readonly progress: BatchProgress,
    private readonly storage: ScreenshotStorage,
    private readonly zip: ZipWriter,
    private readonly urlPolicy: UrlPolicy,
    private readonly secretBox: SecretBox,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async create(account: Account, input: BatchInput): Promise<BatchProps> {
    const limit = planBatchSize(account.plan);
    if (input.items.length === 0) throw ValidationFailedError.of(input.list, `${input.list} must hold at least one URL`);
    if (input.items.length > limit) {
      throw ValidationFailedError.of(input.list, `${input.list} must hold at most ${limit} URLs on the ${account.plan} plan (it holds ${input.items.length})`);
    }
    const errors: FieldError[] = under('options', this.optionConflicts(input.shared));
    const checked = await mapLimited(input.items, URL_CHECKS_AT_ONCE, async (item) => {
      const options = itemOptions(input.shared, item.options);
      const problems: FieldError[] = [];
      // An item's own options are named at the item; the shared ones were named at `options` above.
      if (Object.keys(item.options).length > 0) problems.push(...under(item.field, this.optionConflicts(options)));
      const verdict = await this.urlPolicy.check(item.url);
      if (!verdict.allowed) problems.unshift({ field: item.urlField, message: verdict.reason });
      else problems.push(...under(item.field, secretConflicts(options.secrets, verdict.url.hostname)));
      return { url: verdict.allowed ? verdict.url.toString() : item.url, options, problems };
    });
    for (const item of checked) errors.push(...item.problems);
    if (errors.length > 0) throw new ValidationFailedError(errors);

    const now = this.clock.now();
    const batchId = randomUUID();
    const planned = checked.map((item, position) => ({ position, url: item.url, options: item.options, jobId: randomUUID() }));
    const batch = await this.batches.create({
      id: batchId,
      accountId: account.id,
      name: input.name,
      createdAt: now,
      items: planned.map(({ position, url, jobId }) => ({ position, url, jobId })),
    });
    const queued: string[] = [];
    try {
      await this.jobs.submitMany(
        planned.map((item) => {
          const { secrets, ...options } = item.options;
          const payload: BatchItemJobOptions = { batchId, position: item.position, url: item.url, options, ...sealedSecrets(this.secretBox, secrets) };
          return {
            id: item.jobId,
            type: BATCH_ITEM_JOB_KIND.name,
            accountId: account.id,
            websiteId: null,
            source: 'api' as const,
            options: payload,
            idempotencyKey: null,
            createdAt: now,
          };
        }),
        queued,
      );
    } catch (err) {
      // Nothing half-applied: every job is taken back (a queued one never runs; one a worker has started finds
      // its item gone and records nothing), then the batch is removed.
      this.logger.error(`batch ${batchId}: queuing its jobs failed after ${queued.length}: ${errorMessage(err)}`);
      for (const item of planned) await this.jobRows.cancelQueued(item.jobId, 'The batch could not be queued', this.clock.now()).catch(() => false);
      await this.batches.delete(batchId);
      if (err instanceof UnavailableError) throw err;
      throw new UnavailableError('The job queue is unavailable; nothing was queued. Please retry.');
    }
    return batch;
  }

  /** Take Screenshot's / render's checks of one set of options (a batch item has no website: the table's defaults). */
  private optionConflicts(options: CaptureOptions): FieldError[] {
    return [
      ...outputConflicts(options, {}),
      ...pageOptionConflicts(options, {
        format: resolveOutput(options, {}).format,
        viewportWidth: options.viewportWidth ?? 1280,
        viewportSetByRequest: viewportFieldsSet(options),
        captureTimeoutMs: this.config.captureTimeoutMs,
      }),
    ];
  }

  async get(accountId: number, id: string): Promise<BatchProps> {
    const batch = await this.batches.findOwned(accountId, id);
    if (!batch) throw new NotFoundError('Batch');
    return batch;
  }

  list(accountId: number, page: PageRequest): Promise<Page<BatchProps>> {
    return this.batches.list(accountId, page);
  }

  /**
   * A page of the batch's items, with which of the queued ones are running (read from their jobs). An item whose
   * job has ended without it being recorded (its retries ran out) is ended from the job here too.
   */
  async items(
    batch: BatchProps,
    page: PageRequest,
    status?: StoredItemStatus,
  ): Promise<{ page: Page<BatchItemProps>; running: Set<string>; batch: BatchProps }> {
    let items = await this.batches.items(batch.id, page, status);
    const queued = items.items.filter((item) => item.status === 'queued');
    const running = new Set<string>();
    if (queued.length > 0) {
      const jobs = await this.jobRows.findMany(queued.map((item) => item.jobId));
      for (const job of jobs) if (job.status === 'running') running.add(job.id);
      if (await this.endFromJobs(batch.id, jobs)) {
        items = await this.batches.items(batch.id, page, status);
        batch = (await this.batches.findById(batch.id)) ?? batch;
      }
    }
    return { page: items, running, batch };
  }

  /** Items whose jobs ended without the item being recorded (retries ran out, a worker abandoned): ended as their job. */
  private async endFromJobs(batchId: string, jobs: JobProps[]): Promise<number> {
    let ended = 0;
    const now = this.clock.now();
    for (const job of jobs) {
      if (job.status !== 'failed' && job.status !== 'succeeded') continue;
      const outcome = job.status === 'failed' && job.error === CANCELLED_ERROR ? 'cancelled' : 'failed';
      const error = job.status === 'failed' ? (job.error ?? 'The capture failed') : 'The capture’s result was not recorded';
      ended += await this.progress.itemsEnded(batchId, [job.id], { outcome, error, file: null, finishedAt: job.finishedAt ?? now });
    }
    return ended;
  }

  /** Every running batch's unrecorded ends (the reconciliation's pass; BatchReconciler). */
  async reconcile(): Promise<number> {
    let ended = 0;
    for (const batch of await this.batches.running(50)) {
      const queued = await this.batches.allItems(batch.id, 'queued');
      if (queued.length === 0) continue;
      ended += await this.endFromJobs(batch.id, await this.jobRows.findMany(queued.map((item) => item.jobId)));
    }
    return ended;
  }

  /**
   * Cancels what has not started: each queued job is ended (only while it is still queued, so a job a worker has
   * claimed runs to its end), its item counted `cancelled`. The batch ends once its running items have.
   */
  async cancel(accountId: number, id: string): Promise<BatchProps> {
    const batch = await this.get(accountId, id);
    if (!(await this.batches.requestCancel(batch.id, this.clock.now()))) return (await this.batches.findById(batch.id)) ?? batch;
    const cancelled: string[] = [];
    for (const item of await this.batches.allItems(batch.id, 'queued')) {
      if (await this.jobRows.cancelQueued(item.jobId, CANCELLED_ERROR, this.clock.now())) cancelled.push(item.jobId);
    }
    if (cancelled.length > 0)
      await this.progress.itemsEnded(batch.id, cancelled, { outcome: 'cancelled', error: CANCELLED_ERROR, file: null, finishedAt: this.clock.now() });
    return (await this.batches.findById(batch.id)) ?? batch;
  }

  /**
   * A streamed ZIP of what has succeeded so far (each file opened only when the archive reaches it) and
   * `results.csv`: one line per item, in the list's order (url, status, file, error).
   */
  async download(accountId: number, id: string): Promise<{ batch: BatchProps; archive: Readable }> {
    const batch = await this.get(accountId, id);
    const items = await this.batches.allItems(batch.id);
    const rows = items.map((item) => [
      item.url,
      item.status,
      item.file ? batchEntryName(item.position, batch.total, item.url, item.file.format) : '',
      item.error ?? '',
    ]);
    const csv = stringify([['url', 'status', 'file', 'error'], ...rows]);
    const entries = items.flatMap((item) =>
      item.file ? [{ name: batchEntryName(item.position, batch.total, item.url, item.file.format), open: () => this.storage.open(item.file!.key) }] : [],
    );
    entries.push({ name: 'results.csv', open: () => Readable.from([Buffer.from(csv)]) });
    return { batch, archive: this.zip.stream(entries) };
  }
}
