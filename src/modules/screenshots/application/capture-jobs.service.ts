import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { JobEvents } from '../../jobs/application/job-events';
import { JobTransport } from '../../jobs/application/job-transport';
import { readWhenFinished } from '../../jobs/application/job-wait';
import { Clock } from '../../../shared/domain/clock';
import { ConflictError, NotFoundError, UnavailableError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { hasSecrets, secretConflicts } from '../../../shared/domain/capture-secrets';
import { outputConflicts, pageOptionConflicts, resolveOutput } from '../../../shared/domain/capture-option-rules';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { CaptureOptions, mergeCaptureOptions } from '../../../shared/domain/capture-option-table';

/** Request fields a device preset sets, so a request cannot also send them. */
const VIEWPORT_FIELDS = [
  ['viewportWidth', 'viewport_width'],
  ['viewportHeight', 'viewport_height'],
  ['deviceScaleFactor', 'device_scale_factor'],
] as const;
import { PageRequest } from '../../../shared/domain/page-request';
import { WebsitesService } from '../../websites/application/websites.service';
import { JobProps, JobSource, isSameJobRequest } from '../../jobs/domain/job';
import type { CaptureJobOptions } from '../domain/capture-job-options';
import { JobFilter, JobRepository, NewJob } from '../../jobs/application/ports';
import { errorMessage } from '../../../shared/domain/error-message';
import { AppConfig } from '../../../config/app-config';

/** Asking for captures and reading their jobs (the API side of the capture pipeline). */
@Injectable()
export class CaptureJobsService {
  private readonly logger = new Logger('CaptureJobs');

  constructor(
    private readonly jobs: JobRepository,
    private readonly websites: WebsitesService,
    private readonly transport: JobTransport,
    private readonly clock: Clock,
    private readonly events: JobEvents,
    private readonly secretBox: SecretBox,
    private readonly config: AppConfig,
  ) {}

  /** A request's secrets are never stored in plain text: sealed on the job row, with a digest for idempotency. */
  private sealed(options: CaptureOptions): CaptureJobOptions {
    const { secrets, ...rest } = options;
    if (!hasSecrets(secrets)) return rest;
    const plain = JSON.stringify(secrets);
    return { ...rest, sealedSecrets: this.secretBox.seal(plain), secretsDigest: this.secretBox.digest(plain) };
  }

  async requestCapture(
    accountId: number,
    websiteId: number,
    options: CaptureOptions,
    idempotencyKey: string | null,
    source: JobSource = 'api',
    scheduleId: number | null = null,
  ): Promise<JobProps> {
    const website = await this.websites.get(accountId, websiteId);
    // Checked against what the capture will use: a request's quality with the website's png is as wrong as
    // with its own. (A schedule's capture sends no options, and its website's were checked when saved.)
    const format = resolveOutput(options, website.captureOptions).format;
    const conflicts = [
      ...outputConflicts(options, website.captureOptions),
      ...pageOptionConflicts(mergeCaptureOptions(options, website.captureOptions), {
        format,
        viewportWidth: options.viewportWidth ?? website.viewportWidth,
        viewportSetByRequest: VIEWPORT_FIELDS.filter(([key]) => options[key] !== undefined).map(([, field]) => field),
        captureTimeoutMs: this.config.captureTimeoutMs,
      }),
    ];
    conflicts.push(...secretConflicts(options.secrets, new URL(website.url).hostname));
    if (conflicts.length > 0) throw new ValidationFailedError(conflicts);
    return this.submit({
      id: randomUUID(),
      type: 'screenshot',
      accountId,
      websiteId,
      source,
      scheduleId,
      options: this.sealed(options),
      idempotencyKey,
      createdAt: this.clock.now(),
    });
  }

  /**
   * Writes the job row, then hands it to the transport before answering: once the client has a job id,
   * the job is durably queued. A reused idempotency key returns the job it made before — if the request is
   * the same one; a key reused for something else is 409. If the transport is down the row is removed again
   * (503, nothing half-applied). Used for captures and scenario runs.
   */
  async submit(newJob: NewJob): Promise<JobProps> {
    const { job, created } = await this.jobs.createOrGetIdempotent(newJob);
    if (!created) {
      if (!isSameJobRequest(job, newJob)) {
        throw new ConflictError('This Idempotency-Key was already used for a different request; use a new key for a new request.');
      }
      return job;
    }
    try {
      await this.transport.enqueue(job.id);
    } catch (err) {
      this.logger.error(`could not queue job ${job.id}: ${errorMessage(err)}`);
      await this.jobs.delete(job.id);
      throw new UnavailableError('The job queue is unavailable; nothing was queued. Please retry.');
    }
    return job;
  }

  async get(accountId: number, id: string): Promise<JobProps> {
    const job = await this.jobs.findOwned(accountId, id);
    if (!job) throw new NotFoundError('Job');
    return job;
  }

  /** The job once it has ended, or after `waitSeconds` as it is then (long-poll; 0 = at once). */
  getWhenFinished(accountId: number, id: string, waitSeconds: number, clientGone: AbortSignal): Promise<JobProps> {
    return readWhenFinished(this.events, id, waitSeconds, clientGone, () => this.get(accountId, id));
  }

  list(accountId: number, page: PageRequest, filter: JobFilter) {
    return this.jobs.list(accountId, page, filter);
  }
}
