import { eraseSealedSecrets } from '../../jobs/application/erase-sealed-secrets';
import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import type { CaptureSecrets } from '../../../shared/domain/capture-secrets';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { UrlPolicy } from '../../../shared/url-policy';
import { InfrastructureFailure } from '../../jobs/application/job-failure';
import { endedIf, HandledOutcome, HandlesJobs, JobTypeHandler } from '../../jobs/application/job-kinds';
import { JobRepository } from '../../jobs/application/ports';
import type { JobProps } from '../../jobs/domain/job';
import { ProxyRouter } from '../../proxies/application/proxy-router';
import { renderCaptureRequest } from '../../renders/application/render-request';
import { CaptureFailure, PageCapturer } from '../../screenshots/application/capture.port';
import { ScreenshotStorage } from '../../screenshots/application/ports';
import { SavedSessions } from '../../screenshots/application/saved-sessions.port';
import { CaptureRoute } from '../../screenshots/application/capture-route';
import { batchItemFileKey } from '../domain/batch';
import type { BatchItemJobOptions } from '../domain/batch-item-job';
import { BATCH_ITEM_JOB_KIND } from './batch-item-job-kind';
import { BatchProgress } from './batch-progress';

type BatchItemJob = JobProps<BatchItemJobOptions>;

/**
 * Runs one batch item on a worker: the same capture port as every capture (browsers, admission, egress rules and
 * URL policy), the file stored in the batch's area of the storage port, the item recorded on its batch, then the
 * job ended. The item is recorded before the job (a conditional update: recorded once however often it runs), so
 * a worker dying in between leaves a job the sweep runs again, never an item nobody ends. A page failure ends the
 * item and the job failed with the page's words; a browser or storage failure is thrown to the dispatcher, which
 * retries it (and, should the retries run out, the batches' reconciliation ends the item from its failed job).
 */
@Injectable()
@HandlesJobs(BATCH_ITEM_JOB_KIND)
export class BatchItemRunner implements JobTypeHandler<BatchItemJobOptions> {
  private readonly logger = new Logger('BatchItemRunner');
  /** Session and proxy: the same route as every job kind's capture. */
  private readonly route: CaptureRoute;

  constructor(
    private readonly jobs: JobRepository,
    private readonly progress: BatchProgress,
    private readonly storage: ScreenshotStorage,
    capturer: PageCapturer,
    private readonly urlPolicy: UrlPolicy,
    private readonly secretBox: SecretBox,
    private readonly clock: Clock,
    proxies: ProxyRouter,
    sessions: SavedSessions,
  ) {
    this.route = new CaptureRoute(capturer, proxies, sessions);
  }

  async handle(job: BatchItemJob): Promise<HandledOutcome> {
    const { batchId, position, url } = job.options;
    const verdict = await this.urlPolicy.check(url);
    if (!verdict.allowed) return this.fail(job, `blocked by URL policy: ${verdict.reason}`);
    let result;
    try {
      const secrets = job.options.sealedSecrets ? (JSON.parse(this.secretBox.open(job.options.sealedSecrets)) as CaptureSecrets) : undefined;
      const choice =
        secrets?.proxy !== undefined ? { proxy: secrets.proxy } : job.options.options.proxyPool !== undefined ? { pool: job.options.options.proxyPool } : {};
      result = await this.route.capture(renderCaptureRequest(url, job.options.options, secrets), {
        // session_id: one of the batch's account's saved sessions, as a render's (refreshed once when found logged out).
        sessionId: job.options.options.sessionId,
        // The item's proxy or pool (a pool's failing proxy is skipped for the next), else the operator's CAPTURE_PROXY.
        proxy: { accountId: job.accountId, websiteId: null, url, ...choice },
      });
    } catch (err) {
      if (err instanceof CaptureFailure && err.kind === 'page') return this.fail(job, err.message);
      throw err;
    }
    const key = batchItemFileKey(job.accountId, batchId, position, result.format);
    try {
      await this.storage.put(key, result.data);
    } catch (err) {
      throw new InfrastructureFailure('the capture could not be stored', err);
    }
    const now = this.clock.now();
    await this.progress.itemsEnded(batchId, [job.id], {
      outcome: 'succeeded',
      error: null,
      file: { key, format: result.format, size: result.data.length, width: result.width, height: result.height },
      finishedAt: now,
    });
    const outcome = endedIf(await this.jobs.succeed(job.id, null, now), 'succeeded');
    await eraseSealedSecrets(this.jobs, job, this.logger);
    return outcome;
  }

  private async fail(job: BatchItemJob, message: string): Promise<HandledOutcome> {
    const now = this.clock.now();
    await this.progress.itemsEnded(job.options.batchId, [job.id], { outcome: 'failed', error: message, file: null, finishedAt: now });
    const outcome = endedIf(await this.jobs.fail(job.id, message, now), 'failed');
    await eraseSealedSecrets(this.jobs, job, this.logger);
    return outcome;
  }
}
