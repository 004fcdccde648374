import { failureWords } from '../../../shared/domain/failure-words';
import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { isCaptureTimeout } from '../../../shared/domain/capture-timeout';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { secretConflicts } from '../../../shared/domain/capture-secrets';
import { outputConflicts, pageOptionConflicts, resolveOutput, viewportFieldsSet } from '../../../shared/domain/capture-option-rules';
import { CaptureOptions } from '../../../shared/domain/capture-option-table';
import { CaptureFailedError, CaptureTimeoutError, NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { sealedSecrets } from '../../../shared/secrets/sealed-secrets';
import { UrlPolicy } from '../../../shared/url-policy';
import { captureRunMs } from '../../screenshots/application/capture-route';
import { MAX_WAIT_SECONDS } from '../../jobs/application/job-wait';
import { JobsService } from '../../jobs/application/jobs.service';
import { isFinished, JobProps } from '../../jobs/domain/job';
import { comparisonKey } from '../../screenshots/application/comparison-key';
import { openedFile } from '../../screenshots/application/opened-file';
import { ScreenshotStorage } from '../../screenshots/application/ports';
import { ageSeconds, isHit, isKept, JSON_LINK_MIN_SECONDS, PENDING_KEEP_SECONDS, renderContentsKey, RenderProps } from '../domain/render';
import type { ContentFormat } from '../../../shared/domain/output-format';
import { renderCacheKey } from '../domain/render-cache-key';
import type { RenderJobOptions } from '../domain/render-job';
import { RenderRepository } from './ports';
import { renderCaptureRequest } from './render-request';

/** What a render call asks for, in the domain's names (the wire's are read in http/). */
export interface RenderInput {
  url: string;
  options: CaptureOptions;
  ttlSeconds: number;
  cacheKey: string | null;
  fresh: boolean;
  /** json: the answer links to the object, which is then kept at least JSON_LINK_MIN_SECONDS. */
  linked: boolean;
  /** `formats` (json only): page content read in the same visit besides the file, inlined in the answer. */
  contents?: ContentFormat[];
}

export interface RenderOutcome {
  render: RenderProps;
  cache: 'HIT' | 'MISS';
  /** Seconds since the entry was made (0 on a miss). */
  age: number;
}

/** Past this long beyond its capture's own limit, a render no worker finished is answered 504 (a queue backlog). */
const QUEUE_ALLOWANCE_MS = 30_000;
/** How many times a request retries the live-entry race (another request inserted or retired it meanwhile). */
const RACE_ATTEMPTS = 5;
/** How long a request that joined an entry waits for its job row to appear (written right after the entry). */
const JOB_WRITE_GRACE_MS = 5_000;

/**
 * Render in one call (API.md): checks the request like Take Screenshot, answers from the cache when it may, else
 * makes — or joins — the one capture of its key: the live entry is unique per (account, key) in the database, so
 * identical concurrent misses, on any number of API processes, insert one entry and one job, and the latecomers
 * wait on that job. Waiting is the long-poll of GET /jobs/{id}?wait (job events), the capture a worker's.
 */
@Injectable()
export class RendersService {
  private readonly logger = new Logger('Renders');

  constructor(
    private readonly renders: RenderRepository,
    private readonly jobs: JobsService,
    private readonly storage: ScreenshotStorage,
    private readonly urlPolicy: UrlPolicy,
    private readonly secretBox: SecretBox,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async render(accountId: number, input: RenderInput, clientGone: AbortSignal): Promise<RenderOutcome> {
    const url = await this.checked(input);
    const job = this.jobOptions(url, input);
    const request = renderCaptureRequest(url, input.options);
    const cacheKey = renderCacheKey({
      accountId,
      url,
      picture: comparisonKey(request, input.options.device ?? null, 'png') ?? '',
      // An entry made with `formats` has their content beside its file: only a render asking for the same shares it.
      output: input.contents?.length ? { ...request.output, contents: input.contents } : request.output,
      secretsDigest: job.secretsDigest ?? null,
      failOnStatus: input.options.failOnStatus,
      cacheKey: input.cacheKey,
    });
    for (let attempt = 1; ; attempt++) {
      const render = await this.liveEntry(accountId, cacheKey, input, job);
      if ('hit' in render) return this.answered({ render: render.hit, cache: 'HIT', age: ageSeconds(render.hit, this.clock.now()) }, input);
      const ended = await this.waitFor(
        accountId,
        render.joined,
        render.job,
        input.options.timeoutMs ?? this.config.captureTimeoutMs,
        input.options.sessionId !== undefined,
        clientGone,
      );
      if (ended) return this.answered({ render: ended, cache: 'MISS', age: 0 }, input);
      // The entry joined had no job (its maker failed to queue it, or died between the two writes): it was retired,
      // and the next round makes the capture.
      if (attempt >= RACE_ATTEMPTS) throw new CaptureFailedError('Too many identical renders replaced each other; try again');
    }
  }

  /**
   * The job of an entry that was just joined. Its maker writes the entry first and the job right after, so a
   * latecomer can find the entry before its job: it looks again for up to JOB_WRITE_GRACE_MS. Null when the job
   * never came (the maker could not queue it, or died in between).
   */
  private async jobOfEntry(accountId: number, render: RenderProps): Promise<JobProps | null> {
    const giveUpAt = Date.now() + JOB_WRITE_GRACE_MS;
    for (;;) {
      try {
        return await this.jobs.get(accountId, render.id);
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        if (Date.now() >= giveUpAt) return null;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** The stored bytes of a ready render, once the store has answered for them (openedFile: a gone file is 404, a store away 503). */
  async open(render: RenderProps): Promise<Readable> {
    if (!render.fileKey) throw new NotFoundError('Render');
    return openedFile(this.storage, render.fileKey, 'Render file', this.logger);
  }

  /**
   * The page content a `formats` render kept beside its file, by format (metadata as its object). Missing (a render
   * made before, or swept meanwhile) is a failure to answer, not an empty answer.
   */
  async contents(render: RenderProps, formats: readonly ContentFormat[]): Promise<Partial<Record<ContentFormat, unknown>>> {
    const stored = render.fileKey ? await this.storage.read(renderContentsKey(render.fileKey)) : null;
    if (!stored) throw new CaptureFailedError('The render’s page content is no longer kept; ask again with fresh=true');
    const all = JSON.parse(stored.toString('utf8')) as Partial<Record<ContentFormat, string>>;
    const out: Partial<Record<ContentFormat, unknown>> = {};
    for (const format of formats) {
      const content = all[format];
      if (content === undefined) throw new CaptureFailedError(`The render has no ${format} content; ask again with fresh=true`);
      out[format] = format === 'metadata' ? JSON.parse(content) : content;
    }
    return out;
  }

  /** The ready render `id` while it is kept (a signed link's target). */
  async kept(id: string): Promise<RenderProps> {
    const render = await this.renders.findById(id);
    if (!render || !isKept(render, this.clock.now())) throw new NotFoundError('Render');
    return render;
  }

  /**
   * Take Screenshot's checks, and the URL policy's on the URL's text (scheme, credentials, literal addresses); its
   * host's addresses are checked by `admitted`, before a capture is made. When anything else is wrong, the host is
   * checked here too, so that one 422 names every bad field.
   */
  private async checked(input: RenderInput): Promise<string> {
    const options = input.options;
    const format = resolveOutput(options, {}).format;
    const conflicts = [
      ...outputConflicts(options, {}),
      ...pageOptionConflicts(options, {
        format,
        viewportWidth: options.viewportWidth ?? 1280,
        viewportSetByRequest: viewportFieldsSet(options),
        captureTimeoutMs: this.config.captureTimeoutMs,
      }),
    ];
    let verdict = this.urlPolicy.checkSyntax(input.url);
    if (verdict.allowed) conflicts.push(...secretConflicts(options.secrets, verdict.url.hostname));
    if (verdict.allowed && conflicts.length > 0) verdict = await this.urlPolicy.check(input.url);
    if (!verdict.allowed) conflicts.unshift({ field: 'url', message: verdict.reason });
    if (conflicts.length > 0) throw new ValidationFailedError(conflicts);
    return verdict.allowed ? verdict.url.toString() : input.url;
  }

  /**
   * The URL policy's full check (its host's addresses: DNS) before a capture of `url` is made; the worker checks
   * every request of the page again when it fetches. A cache hit, or joining a capture already under way, needs
   * none: nothing is fetched, and the entry was made only after this check passed. So the `<img>` of a signed link
   * is answered from the cache without a DNS lookup on every request (docs/render.md).
   */
  private async admitted(url: string): Promise<void> {
    const verdict = await this.urlPolicy.check(url);
    if (!verdict.allowed) throw ValidationFailedError.of('url', verdict.reason);
  }

  private jobOptions(url: string, input: RenderInput): RenderJobOptions {
    const { secrets, ...options } = input.options;
    return {
      url,
      options,
      ttlSeconds: input.ttlSeconds,
      ...sealedSecrets(this.secretBox, secrets),
      ...(input.contents?.length ? { contents: input.contents } : {}),
    };
  }

  /**
   * The entry that answers: a ready one within the request's TTL (a hit), else the pending one of the same key
   * (joined), else a new one with its job. An entry that may not answer (expired, failed, `fresh`) is retired first.
   */
  private async liveEntry(
    accountId: number,
    cacheKey: string,
    input: RenderInput,
    job: RenderJobOptions,
  ): Promise<{ hit: RenderProps } | { joined: RenderProps; job: JobProps | null }> {
    let admitted = false;
    for (let attempt = 0; attempt < RACE_ATTEMPTS; attempt++) {
      const now = this.clock.now();
      const live = await this.renders.findLive(accountId, cacheKey);
      if (live) {
        if (live.status === 'pending') {
          const joined = await this.joinable(accountId, live, now);
          if (joined) return { joined: live, job: joined.job };
        }
        if (live.status !== 'pending' && !input.fresh && isHit(live, input.ttlSeconds, now)) return { hit: live };
      }
      // A capture is to be made: only now its URL's host is looked up (a request the policy refuses retires nothing).
      if (!admitted) {
        await this.admitted(job.url);
        admitted = true;
      }
      if (live) await this.renders.retire(live.id);
      const id = randomUUID();
      const format = resolveOutput(input.options, {}).format;
      const keepUntil = new Date(now.getTime() + PENDING_KEEP_SECONDS * 1000);
      if (!(await this.renders.insertLive({ id, accountId, cacheKey, url: job.url, format, createdAt: now, keepUntil }))) continue;
      let submitted: JobProps;
      try {
        submitted = await this.submit(id, accountId, job);
      } catch (err) {
        await this.renders.delete(id);
        throw err;
      }
      return { joined: (await this.renders.findById(id))!, job: submitted };
    }
    throw new CaptureFailedError('Too many identical renders replaced each other; try again');
  }

  /**
   * Whether a pending entry can still end ready, so a request may wait on it. Not when its job failed (its maker
   * could not record the failure on the entry), when its job is gone (never written, or removed) past
   * JOB_WRITE_GRACE_MS, or when it is older than its maker would wait for it (the job's run time + the queue
   * allowance: its worker died, or the job never ends). Such an entry is retired and the capture made anew,
   * instead of answering the joiner a stale 502 or 504. Joinable: with the job as read (null while it may still be
   * being written), which the wait starts from rather than reading it again.
   */
  private async joinable(accountId: number, entry: RenderProps, now: Date): Promise<{ job: JobProps | null } | null> {
    const age = now.getTime() - entry.createdAt.getTime();
    let job: JobProps;
    try {
      job = await this.jobs.get(accountId, entry.id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      return age < JOB_WRITE_GRACE_MS ? { job: null } : null;
    }
    if (job.status === 'failed') return null;
    const options = (job.options as RenderJobOptions).options;
    return age <= this.allowedMs(options?.timeoutMs ?? this.config.captureTimeoutMs, options?.sessionId !== undefined) ? { job } : null;
  }

  /**
   * How long a request waits for a render's job: the capture's own limit (with a saved session, also its one login
   * again and the second capture), and QUEUE_ALLOWANCE_MS for the queue.
   */
  private allowedMs(timeoutMs: number, withSession: boolean): number {
    return captureRunMs({ ...this.config, captureTimeoutMs: timeoutMs }, withSession) + QUEUE_ALLOWANCE_MS;
  }

  /**
   * The one place a render job is queued. A client is waiting on it, so it goes ahead of batch and scheduled
   * captures (docs/fair-slots.md); it still counts against its account's cap. Its id is the render's.
   */
  private submit(id: string, accountId: number, options: RenderJobOptions): Promise<JobProps> {
    return this.jobs.submit(
      { id, type: 'render', accountId, websiteId: null, source: 'api', options, idempotencyKey: null, createdAt: this.clock.now() },
      { interactive: true },
    );
  }

  /**
   * Waits for the render's job (long-poll on job events), then reads its entry: ready, or the job's error as 502/504.
   * Null when the entry has no job (it is retired: the caller makes the capture anew).
   */
  private async waitFor(
    accountId: number,
    render: RenderProps,
    known: JobProps | null,
    timeoutMs: number,
    withSession: boolean,
    clientGone: AbortSignal,
  ): Promise<RenderProps | null> {
    const allowedMs = this.allowedMs(timeoutMs, withSession);
    const deadline = Date.now() + allowedMs;
    let job = known ?? (await this.jobOfEntry(accountId, render));
    if (!job) {
      await this.renders.retire(render.id);
      return null;
    }
    while (!isFinished(job.status) && !clientGone.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) throw new CaptureTimeoutError(`The render did not finish within ${Math.round(allowedMs / 1000)} s`);
      job = await this.jobs.getWhenFinished(accountId, render.id, Math.min(MAX_WAIT_SECONDS, Math.ceil(left / 1000)), clientGone);
    }
    if (job.status === 'failed') {
      // The next identical request makes a new capture rather than joining this failed one.
      await this.renders.retire(render.id);
      const message = job.error ?? 'The capture failed';
      // In words with a next step (failure-words.ts); the raw cause's code rides along as the body's error_code.
      const words = failureWords(message);
      throw isCaptureTimeout(message) ? new CaptureTimeoutError(words.text, words.code) : new CaptureFailedError(words.text, words.code);
    }
    if (job.status !== 'succeeded') throw new CaptureTimeoutError('The client went away before the render finished');
    const ended = await this.renders.findById(render.id);
    if (!ended || ended.status !== 'ready') throw new CaptureFailedError('The render was removed before it could be answered');
    return ended;
  }

  /** A json answer links to the object: it is kept at least JSON_LINK_MIN_SECONDS from now. */
  private async answered(outcome: RenderOutcome, input: RenderInput): Promise<RenderOutcome> {
    if (!input.linked) return outcome;
    const until = new Date(this.clock.now().getTime() + JSON_LINK_MIN_SECONDS * 1000);
    if (outcome.render.keepUntil.getTime() >= until.getTime()) return outcome;
    await this.renders.keepAtLeast(outcome.render.id, until);
    return { ...outcome, render: { ...outcome.render, keepUntil: until } };
  }
}
