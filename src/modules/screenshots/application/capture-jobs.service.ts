import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JobsService } from '../../jobs/application/jobs.service';
import { Clock } from '../../../shared/domain/clock';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { secretConflicts } from '../../../shared/domain/capture-secrets';
import { outputConflicts, pageOptionConflicts, resolveOutput, viewportFieldsSet } from '../../../shared/domain/capture-option-rules';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { sealedSecrets } from '../../../shared/secrets/sealed-secrets';
import { CaptureOptions, mergeCaptureOptions } from '../../../shared/domain/capture-option-table';
import { WebsitesService } from '../../websites/application/websites.service';
import { JobProps, JobSource } from '../../jobs/domain/job';
import type { CaptureJobOptions } from '../domain/capture-job-options';
import { AppConfig } from '../../../config/app-config';

/** Asking for captures (the API side of the capture pipeline); the job is queued and read back by JobsService. */
@Injectable()
export class CaptureJobsService {
  constructor(
    private readonly jobs: JobsService,
    private readonly websites: WebsitesService,
    private readonly clock: Clock,
    private readonly secretBox: SecretBox,
    private readonly config: AppConfig,
  ) {}

  /** A request's secrets are never stored in plain text: sealed on the job row, with a digest for idempotency. */
  private sealed(options: CaptureOptions): CaptureJobOptions {
    const { secrets, ...rest } = options;
    return { ...rest, ...sealedSecrets(this.secretBox, secrets) };
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
        viewportSetByRequest: viewportFieldsSet(options),
        captureTimeoutMs: this.config.captureTimeoutMs,
      }),
    ];
    conflicts.push(...secretConflicts(options.secrets, new URL(website.url).hostname));
    if (conflicts.length > 0) throw new ValidationFailedError(conflicts);
    return this.jobs.submit({
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
}
