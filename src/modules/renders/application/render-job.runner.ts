import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import type { CaptureSecrets } from '../../../shared/domain/capture-secrets';
import { errorMessage } from '../../../shared/domain/error-message';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { UrlPolicy } from '../../../shared/url-policy';
import { InfrastructureFailure } from '../../jobs/application/job-failure';
import { endedIf, HandledOutcome, HandlesJobs, JobTypeHandler } from '../../jobs/application/job-kinds';
import { JobRepository } from '../../jobs/application/ports';
import type { JobProps } from '../../jobs/domain/job';
import { CaptureFailure, PageCapturer } from '../../screenshots/application/capture.port';
import { ProxyRouter } from '../../proxies/application/proxy-router';
import { ScreenshotStorage } from '../../screenshots/application/ports';
import { renderContentsKey, renderFileKey, retention, UNCACHED_KEEP_SECONDS } from '../domain/render';
import type { RenderJobOptions } from '../domain/render-job';
import { RenderRepository } from './ports';
import { RENDER_JOB_KIND } from './render-job-kind';
import { renderCaptureRequest } from './render-request';
import { SavedSessions } from '../../screenshots/application/saved-sessions.port';
import { CaptureRoute } from '../../screenshots/application/capture-route';

type RenderJob = JobProps<RenderJobOptions>;

/**
 * Runs render jobs on the workers, like capture jobs (the same capture port, so the same browsers, limits and
 * egress rules, embedded or scaled out): captures the URL, stores the bytes under the render's key in the renders
 * area, marks the cache entry ready, then the job succeeded — the API process waiting on the job reads the entry.
 * A page failure fails the job with the page's message (the API answers 502 or 504); a browser or storage failure
 * is thrown to the dispatcher, which retries it. Running twice is harmless: the same id writes the same key.
 */
@Injectable()
@HandlesJobs(RENDER_JOB_KIND)
export class RenderJobRunner implements JobTypeHandler<RenderJobOptions> {
  private readonly logger = new Logger('RenderJobRunner');
  /** Session and proxy: the same route as every job kind's capture. */
  private readonly route: CaptureRoute;

  constructor(
    private readonly jobs: JobRepository,
    private readonly renders: RenderRepository,
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

  async handle(job: RenderJob): Promise<HandledOutcome> {
    const verdict = await this.urlPolicy.check(job.options.url);
    if (!verdict.allowed) return this.fail(job, `blocked by URL policy: ${verdict.reason}`);
    let result;
    try {
      const secrets = job.options.sealedSecrets ? (JSON.parse(this.secretBox.open(job.options.sealedSecrets)) as CaptureSecrets) : undefined;
      result = await this.route.capture(renderCaptureRequest(job.options.url, job.options.options, secrets, job.options.contents), {
        // session_id: one of the render's account's saved sessions (a signed link's account is the key's).
        sessionId: job.options.options.sessionId,
        // A render names no proxy of its own (a link would carry its credentials): only the operator's CAPTURE_PROXY.
        proxy: { accountId: job.accountId, websiteId: null, url: job.options.url },
      });
    } catch (err) {
      if (err instanceof CaptureFailure && err.kind === 'page') return this.fail(job, err.message);
      throw err;
    }
    const fileKey = renderFileKey(job.accountId, job.id, result.format);
    try {
      await this.storage.put(fileKey, result.data);
      // `formats`: the page content read in the same visit, beside the file (the json answer inlines it).
      if (result.contents) await this.storage.put(renderContentsKey(fileKey), Buffer.from(JSON.stringify(result.contents)));
    } catch (err) {
      throw new InfrastructureFailure('the render could not be stored', err);
    }
    const now = this.clock.now();
    const recorded = await this.renders.markReady(job.id, {
      fileKey,
      fileSize: result.data.length,
      width: result.width,
      height: result.height,
      capture: result.report ?? null,
      finishedAt: now,
      ...retention(now, job.options.ttlSeconds),
    });
    if (!recorded) {
      // The entry was swept meanwhile (pending past its keepUntil) or has failed: nothing would ever remove this object.
      for (const key of [fileKey, renderContentsKey(fileKey)])
        await this.storage.delete(key).catch((err) => this.logger.warn(`render ${job.id}: removing its unrecorded object failed: ${errorMessage(err)}`));
      return this.fail(job, 'The render was removed before its capture ended');
    }
    return endedIf(await this.jobs.succeed(job.id, null, now), 'succeeded');
  }

  private async fail(job: RenderJob, message: string): Promise<HandledOutcome> {
    const now = this.clock.now();
    const failed = await this.jobs.fail(job.id, message, now);
    try {
      await this.renders.markFailed(job.id, now, new Date(now.getTime() + UNCACHED_KEEP_SECONDS * 1000));
    } catch (err) {
      // The job has failed (the waiting request answers from it); the entry is retired by the next request.
      this.logger.warn(`render ${job.id}: recording the failure on its entry failed: ${errorMessage(err)}`);
    }
    return endedIf(failed, 'failed');
  }
}
