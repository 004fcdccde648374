import { Get, HttpCode, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { requestOrigin } from '../../../shared/http/pagination';
import { parseId } from '../../../shared/http/validation';
import { UrlPolicy } from '../../../shared/url-policy';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { isFinished } from '../../jobs/domain/job';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import { JobsService } from '../../jobs/application/jobs.service';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { WebsitesService } from '../../websites/application/websites.service';
import type { WebsiteProps } from '../../websites/domain/website';
import { CreateWebsiteDto, toChanges } from '../../websites/http/website.dto';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { HtmlPage, pickerSearch, seeOther } from './responses';
import { captureResultBody, CaptureResult } from './views/pages/website-form.page';
import { CANCEL_OUTCOMES, CancelOutcome, linkLifetime, playgroundPage, PLAYGROUND_SOURCE_FIELDS, SignedLinkView } from './views/pages/playground.page';
import { apiSnippets, renderQuery } from './views/api-snippets';
import { clientGone } from '../../../shared/http/client-gone';
import { replyWithFile } from '../../../shared/http/file-reply';
import { RenderKeysService } from '../../render-keys/application/render-keys.service';
import { signRenderQuery } from '../../render-keys/domain/render-key';
import type { RenderProps } from '../../renders/domain/render';
import { renderFile } from '../../renders/application/render-file';
import {
  asFormErrors,
  CAPTURE_REQUEST_FIELDS,
  errorsByField,
  FormRejected,
  formToBody,
  FormField,
  pickValues,
  PLAYGROUND_WEBSITE_NAME,
  queryOf,
  SAVABLE_OPTION_NAMES,
  validateBody,
} from './website-form';
import { DashboardQueries, WebsiteChoices } from '../application/dashboard-queries';
import { FIND_WEBSITE_FIELD, PICKER_LIMIT } from './views/components';
import { CAPTURE_JOB_KIND } from '../../screenshots/application/capture-job-kind';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { UuidParam } from '../../../shared/http/uuid-param';
import { loadCaptureResult } from './capture-result';
import { queueFirstCapture } from './first-capture';
import { PlaygroundCaptures } from './playground-captures';
import { takeDraft } from './form-drafts';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { SessionChoices } from './session-choices';

/** Why a try's capture job ended without running: its Cancel was pressed while it waited for a browser. */
const PLAYGROUND_CANCELLED = 'Cancelled in the playground before it started: no screenshot was taken';

/** Every control of the playground's form. */
const PLAYGROUND_FIELDS: readonly FormField[] = [...PLAYGROUND_SOURCE_FIELDS, ...CAPTURE_REQUEST_FIELDS];

/**
 * The capture playground: a URL (or one of the account's websites) and any capture option → a real capture
 * job through CaptureJobsService.requestCapture (plan check, URL policy, the API's validation), its progress
 * and result in place, the equivalent curl command, and "save as website" with the options a website keeps.
 */
@DashboardController('dashboard/playground')
export class PlaygroundController {
  constructor(
    private readonly websites: WebsitesService,
    private readonly screenshots: ScreenshotsService,
    private readonly captureJobs: CaptureJobsService,
    private readonly jobs: JobsService,
    private readonly queries: DashboardQueries,
    private readonly clock: Clock,
    private readonly urlPolicy: UrlPolicy,
    private readonly config: AppConfig,
    private readonly captures: PlaygroundCaptures,
    private readonly renderKeys: RenderKeysService,
    private readonly secretBox: SecretBox,
    private readonly sessionChoices: SessionChoices,
  ) {}

  @Get()
  @HtmlPage()
  async page(
    @Viewer() viewer: DashboardViewer,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('job') jobId?: string,
    @Query('render') renderId?: string,
    @Query('site') site?: string,
    @Query('cancel') cancelled?: string,
  ) {
    // What was typed when the session expired on Try (form-drafts.ts), else the address's options.
    const draft = takeDraft(reply, request, this.secretBox, this.config.publicUrl, '/dashboard/playground', viewer.account.id);
    const query = draft ?? new URLSearchParams(request.url.split('?')[1] ?? '');
    const values = pickValues(PLAYGROUND_FIELDS, query);
    const result = jobId && !draft ? await loadCaptureResult(this.jobs, this.screenshots, viewer.account.id, jobId) : null;
    const rendered = typeof renderId === 'string' && !draft ? await this.captures.keptRender(viewer.account.id, renderId) : null;
    return this.render(viewer, request, values, new Map(), result, rendered, {
      restored: draft !== null,
      site: typeof site === 'string' ? site : '',
      cancelled: result ? cancelled : undefined,
    });
  }

  /** A URL try's file, from storage (the render is the account's and still kept, else 404). */
  @Get('renders/:id/image')
  async renderImage(@Viewer() viewer: DashboardViewer, @Param('id') id: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<StreamableFile> {
    const render = await this.captures.keptRender(viewer.account.id, id);
    return replyWithFile(reply, renderFile(render, await this.captures.open(render), 'private, max-age=3600'));
  }

  @Post()
  @HtmlPage()
  @HttpCode(200)
  async submit(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    const form = formFields(request);
    const values = pickValues(PLAYGROUND_FIELDS, form);
    // The website chooser's Find (without script): the form again with the narrowed choices and what was typed.
    if (form.has(FIND_WEBSITE_FIELD)) return this.render(viewer, request, values, new Map(), null, null, { site: form.get('site') ?? '' });
    try {
      if (form.get('action') === 'save') {
        const website = await this.saveAsWebsite(viewer, values);
        return seeOther(reply, `/dashboard/websites?notice=${await queueFirstCapture(this.captureJobs, viewer.account.id, website)}`);
      }
      const tried = await this.captures.tryCapture(viewer.account.id, values, clientGone(reply));
      const query = queryOf(values);
      query.set(tried.kind, tried.id);
      return seeOther(reply, `/dashboard/playground?${query.toString()}`);
    } catch (err) {
      if (!(err instanceof FormRejected)) throw err;
      reply.status(422);
      return this.render(viewer, request, values, errorsByField(PLAYGROUND_FIELDS, err.errors, form.get('action') === 'save'), null, null, {
        site: form.get('site') ?? '',
      });
    }
  }

  /** The job's state and the result panel's markup, for the page's script (polled while the job runs). */
  @Get('jobs/:id')
  async jobStatus(@Viewer() viewer: DashboardViewer, @Param('id') id: string) {
    const result = await loadCaptureResult(this.jobs, this.screenshots, viewer.account.id, id);
    return { status: result.job.status, finished: isFinished(result.job.status), html: captureResultBody(result).toString() };
  }

  /**
   * Cancel during the wait (issue 46): the try's capture job ends before it starts, so it never makes a screenshot
   * (JobsService.cancelQueued). One a browser already captures is not stopped — the jobs module has no safe way to
   * stop a capture half done — and the answer says so plainly: it will finish. Only the account's own capture jobs
   * (another account's, or another kind of job, is 404); the form carries the session's CSRF token like every other.
   * Without script: back to the page with what it did (`?cancel=`); with script (Accept: JSON): that and the panel.
   */
  @Post('jobs/:id/cancel')
  async cancel(
    @Viewer() viewer: DashboardViewer,
    @Param('id') rawId: string,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const accountId = viewer.account.id;
    const id = new UuidParam().transform(rawId);
    if ((await this.jobs.get(accountId, id)).type !== CAPTURE_JOB_KIND.name) throw new NotFoundError('Job');
    const { job, cancelled } = await this.jobs.cancelQueued(accountId, id, PLAYGROUND_CANCELLED, this.clock.now());
    const outcome: CancelOutcome = cancelled ? 'cancelled' : isFinished(job.status) ? 'ended' : 'running';
    if (String(request.headers.accept ?? '').includes('application/json')) {
      const result = await loadCaptureResult(this.jobs, this.screenshots, accountId, job.id);
      return {
        outcome,
        message: CANCEL_OUTCOMES[outcome].text,
        kind: CANCEL_OUTCOMES[outcome].kind,
        status: job.status,
        finished: isFinished(job.status),
        html: captureResultBody(result).toString(),
      };
    }
    // The page's own options come back with it (only as a query of this page: no address to go elsewhere).
    const back = new URLSearchParams(formFields(request).get('back') ?? '');
    for (const name of ['job', 'render', 'cancel', 'notice']) back.delete(name);
    back.set('job', job.id);
    back.set('cancel', outcome);
    return seeOther(reply, `/dashboard/playground?${back.toString()}`);
  }

  private async render(
    viewer: DashboardViewer,
    request: DashboardRequest,
    values: URLSearchParams,
    errors: Map<string, string[]>,
    result: CaptureResult | null,
    rendered: RenderProps | null,
    extra: { restored?: boolean; site?: string; cancelled?: string } = {},
  ): Promise<string> {
    const selected = parseId(values.get('website_id') ?? undefined);
    const site = (extra.site ?? '').slice(0, 200);
    const websites = await this.websiteChoices(viewer.account.id, site, selected);
    // Another account's website is a 404 here as on every route (the form would show nothing of it anyway).
    const website = selected ? await this.websites.get(viewer.account.id, selected) : null;
    const { body } = formToBody(CAPTURE_REQUEST_FIELDS, values, false);
    const origin = requestOrigin(request, this.config.publicUrl);
    let signedLink: SignedLinkView | null = null;
    const url = (values.get('url') ?? '').trim() || 'https://example.com/';
    const snippets = apiSnippets(origin, website ? { kind: 'website', id: website.id, name: website.name } : { kind: 'render', url }, body);
    if (!website) signedLink = await this.signedLink(viewer.account.id, origin, renderQuery(url, body), values.get('link_expires'));
    return playgroundPage(viewer, {
      websites,
      site,
      cancelled: extra.cancelled,
      back: queryOf(values).toString(),
      state: { values, errors, restored: extra.restored ?? false, sessions: await this.sessionChoices.of(viewer.account.id) },
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      result,
      rendered,
      snippets,
      signedLink,
    }).toString();
  }

  /**
   * The chooser's websites: at most PICKER_LIMIT matches of the search (server-side, indexed), the chosen one always
   * in — not every website of the account. Accounts from before /render may still have the old hidden playground
   * website: it stays out of the choices.
   */
  private async websiteChoices(accountId: number, site: string, selected: number | null): Promise<WebsiteChoices> {
    const choices = await this.queries.websiteChoices(accountId, pickerSearch(site), selected ?? undefined, PICKER_LIMIT);
    return { ...choices, websites: choices.websites.filter((w) => w.name !== PLAYGROUND_WEBSITE_NAME) };
  }

  /**
   * The try as a signed `/render` link, with the account's newest render key (its secret never reaches the page
   * alone), expiring after the lifetime chosen in the form (7 days unless changed; "never" only when asked for).
   */
  private async signedLink(accountId: number, origin: string, query: string, lifetime: string | null): Promise<SignedLinkView> {
    const [key] = (await this.renderKeys.list(accountId, { page: 1, perPage: 1 })).items;
    if (!key) return 'no-keys';
    const { seconds, value } = linkLifetime(lifetime);
    const expiresAt = seconds === null ? null : new Date((Math.floor(this.clock.now().getTime() / 1000) + seconds) * 1000);
    const expires = expiresAt ? `&expires=${expiresAt.getTime() / 1000}` : '';
    return {
      link: `${origin}/render?${signRenderQuery(`${query}&access_key=${key.accessKey}${expires}`, key.secret)}`,
      keyName: key.name,
      accessKey: key.accessKey,
      expiresAt,
      lifetime: value,
    };
  }

  /** A new website with the URL and every option a website keeps (the one-off ones cannot be saved). */
  private async saveAsWebsite(viewer: DashboardViewer, values: URLSearchParams): Promise<WebsiteProps> {
    const accountId = viewer.account.id;
    const websiteId = parseId(values.get('website_id') ?? undefined);
    const source = websiteId ? await this.websites.get(accountId, websiteId) : null;
    const url = source?.url ?? (values.get('url') ?? '').trim();
    const { body: request, errors: textErrors } = formToBody(CAPTURE_REQUEST_FIELDS, values, false);
    const options = Object.fromEntries(Object.entries(request).filter(([k]) => SAVABLE_OPTION_NAMES.has(k)));
    const body: Record<string, unknown> = { name: (values.get('name') ?? '').trim() || hostOf(url), url, capture_options: options };
    for (const k of ['viewport_width', 'viewport_height', 'full_page']) if (request[k] !== undefined) body[k] = request[k];
    const { dto, errors } = await validateBody(this.urlPolicy, CreateWebsiteDto, body);
    if (textErrors.length || !dto) throw new FormRejected([...textErrors, ...errors]);
    return asFormErrors(() => this.websites.create(accountId, { ...toChanges(dto), name: dto.name, url: dto.url }));
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || url;
  } catch {
    return url;
  }
}
