import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { IdParam } from '../../../shared/http/id-param';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { UrlPolicy } from '../../../shared/url-policy';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { isFinished } from '../../jobs/domain/job';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import { JobsService } from '../../jobs/application/jobs.service';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { TakeScreenshotDto, toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { WebsitesService } from '../../websites/application/websites.service';
import type { WebsiteProps } from '../../websites/domain/website';
import { CreateWebsiteDto, toChanges, UpdateWebsiteDto } from '../../websites/http/website.dto';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { DASHBOARD_PAGE_SIZE, HtmlPage, lastPage, pageParam, seeOther } from './responses';
import { deleteConfirmPage, FormState, takeScreenshotPage, websiteFormPage } from './views/pages/website-form.page';
import { websitesPage } from './views/pages/websites.page';
import { loadCaptureResult } from './capture-result';
import { queueFirstCapture } from './first-capture';
import {
  asFormErrors,
  FormRejected,
  CAPTURE_REQUEST_FIELDS,
  errorsByField,
  formToBody,
  FormField,
  maskSecrets,
  pickValues,
  queryOf,
  typedSecrets,
  unmaskSecrets,
  validateBody,
  WEBSITE_FIELDS,
  websiteValues,
} from './website-form';
import { takeDraft, withSecretsFrom } from './form-drafts';
import { AppConfig } from '../../../config/app-config';
import { SessionChoices } from './session-choices';

/**
 * Websites: the list, create / edit (every field of POST/PUT /websites, validated by the API's own DTOs and
 * service), pause / resume, delete (confirm page), and "Take screenshot" with or without options.
 */
@DashboardController('dashboard/websites')
export class WebsitesPageController {
  constructor(
    private readonly websites: WebsitesService,
    private readonly screenshots: ScreenshotsService,
    private readonly captureJobs: CaptureJobsService,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
    private readonly urlPolicy: UrlPolicy,
    private readonly secretBox: SecretBox,
    private readonly config: AppConfig,
    private readonly sessionChoices: SessionChoices,
  ) {}

  /** What was typed into this page's form when the session expired on submit (form-drafts.ts), once. */
  private draft(viewer: DashboardViewer, request: DashboardRequest, reply: FastifyReply, page: string): URLSearchParams | null {
    return takeDraft(reply, request, this.secretBox, this.config.publicUrl, page, viewer.account.id);
  }

  @Get()
  @HtmlPage()
  async list(@Viewer() viewer: DashboardViewer, @Query('page') rawPage?: string, @Query('notice') notice?: string) {
    const accountId = viewer.account.id;
    const page = pageParam(rawPage);
    const { items, total } = await this.websites.list(accountId, { page, perPage: DASHBOARD_PAGE_SIZE });
    const first = { page: 1, perPage: 1 };
    const rows = await Promise.all(
      items.map(async (website) => {
        const latest = (await this.screenshots.list(accountId, first, { websiteId: website.id })).items[0] ?? null;
        const lastJob = (await this.jobs.list(accountId, first, { websiteId: website.id, type: 'screenshot' })).items[0] ?? null;
        return { website, latest, lastJob, activeJob: lastJob && !isFinished(lastJob.status) ? lastJob : null };
      }),
    );
    return websitesPage(viewer, {
      rows,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
      hasAccess: this.hasAccess(viewer),
      notice,
    }).toString();
  }

  @Get('new')
  @HtmlPage()
  async newForm(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const draft = this.draft(viewer, request, reply, '/dashboard/websites/new');
    const values = draft ? pickValues(WEBSITE_FIELDS, draft) : new URLSearchParams({ status: 'active' });
    return websiteFormPage(
      viewer,
      null,
      await this.withSessions(viewer, { values, errors: new Map(), restored: draft !== null }),
      this.hasAccess(viewer),
    ).toString();
  }

  @Post()
  @HtmlPage()
  async create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    this.requireAccess(viewer);
    const values = this.typedWebsiteForm(viewer, request);
    try {
      const dto = await this.parse(CreateWebsiteDto, WEBSITE_FIELDS, values, true);
      const website = await asFormErrors(() => this.websites.create(viewer.account.id, { ...toChanges(dto), name: dto.name, url: dto.url }));
      const notice = await queueFirstCapture(this.captureJobs, viewer.account.id, website);
      return seeOther(reply, `/dashboard/websites?notice=${notice}`);
    } catch (err) {
      if (!(err instanceof FormRejected)) throw err;
      reply.status(422);
      return websiteFormPage(viewer, null, await this.withSessions(viewer, this.rejectedState(viewer, values, err, WEBSITE_FIELDS, true)), true).toString();
    }
  }

  @Get(':id/edit')
  @HtmlPage()
  async editForm(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const website = await this.websites.get(viewer.account.id, id);
    const saved = websiteValues(website);
    // A draft never holds the saved secrets: they come back masked, so saving the draft keeps them.
    const draft = this.draft(viewer, request, reply, `/dashboard/websites/${website.id}/edit`);
    const values = draft ? withSecretsFrom(pickValues(WEBSITE_FIELDS, draft), saved) : saved;
    return websiteFormPage(
      viewer,
      website,
      await this.withSessions(viewer, { values, errors: new Map(), restored: draft !== null }),
      this.hasAccess(viewer),
    ).toString();
  }

  /** The whole form is sent, so it is a full update: capture_options replaced as a whole, "********" kept (as PUT does). */
  @Post(':id/edit')
  @HtmlPage()
  async update(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const website = await this.websites.get(viewer.account.id, id);
    this.requireAccess(viewer);
    const values = this.typedWebsiteForm(viewer, request);
    try {
      const dto = await this.parse(UpdateWebsiteDto, WEBSITE_FIELDS, values, true);
      await asFormErrors(() => this.websites.update(viewer.account.id, id, toChanges(dto)));
      return seeOther(reply, '/dashboard/websites?notice=website-saved');
    } catch (err) {
      if (!(err instanceof FormRejected)) throw err;
      reply.status(422);
      return websiteFormPage(viewer, website, await this.withSessions(viewer, this.rejectedState(viewer, values, err, WEBSITE_FIELDS, true)), true).toString();
    }
  }

  @Post(':id/pause')
  async pause(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.setStatus(viewer, id, 'paused', reply);
  }

  @Post(':id/resume')
  async resume(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.setStatus(viewer, id, 'active', reply);
  }

  @Get(':id/delete')
  @HtmlPage()
  async confirmDelete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    return deleteConfirmPage(viewer, await this.websites.get(viewer.account.id, id)).toString();
  }

  @Post(':id/delete')
  async delete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.websites.get(viewer.account.id, id);
    this.requireAccess(viewer);
    await this.websites.delete(viewer.account.id, id);
    return seeOther(reply, '/dashboard/websites?notice=website-deleted');
  }

  /** "Take screenshot" with options; `?job=` shows that capture's progress and result above the form. */
  @Get(':id/screenshot')
  @HtmlPage()
  async screenshotForm(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('job') jobId?: string,
  ) {
    const website = await this.websites.get(viewer.account.id, id);
    const draft = this.draft(viewer, request, reply, `/dashboard/websites/${website.id}/screenshot`);
    if (draft) {
      const restored: FormState = { values: pickValues(CAPTURE_REQUEST_FIELDS, draft), errors: new Map(), restored: true };
      return takeScreenshotPage(viewer, website, CAPTURE_REQUEST_FIELDS, await this.withSessions(viewer, restored), this.hasAccess(viewer), null).toString();
    }
    const loaded = jobId ? await loadCaptureResult(this.jobs, this.screenshots, viewer.account.id, jobId) : null;
    // Only this website's captures are shown here.
    const result = loaded && loaded.job.type === 'screenshot' && loaded.job.websiteId === website.id ? loaded : null;
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    const state: FormState = { values: pickValues(CAPTURE_REQUEST_FIELDS, query), errors: new Map() };
    return takeScreenshotPage(viewer, website, CAPTURE_REQUEST_FIELDS, await this.withSessions(viewer, state), this.hasAccess(viewer), result).toString();
  }

  /**
   * The same durable job as POST /websites/{id}/screenshot. From the list (no options) with the website's
   * defaults, back to the list; from the options form with its options, validated as the API's body, to the
   * form again with the job's live result.
   */
  @Post(':id/screenshot')
  @HtmlPage()
  async take(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    this.requireAccess(viewer);
    const form = formFields(request);
    if (!form.has('_options')) {
      await this.captureJobs.requestCapture(viewer.account.id, id, {}, null, 'dashboard');
      return seeOther(reply, '/dashboard/websites?notice=screenshot-queued');
    }
    const website = await this.websites.get(viewer.account.id, id);
    const values = pickValues(CAPTURE_REQUEST_FIELDS, form);
    try {
      const dto = await this.parse(TakeScreenshotDto, CAPTURE_REQUEST_FIELDS, values, false);
      const job = await asFormErrors(() => this.captureJobs.requestCapture(viewer.account.id, id, toCaptureOptions(dto), null, 'dashboard'));
      const query = queryOf(values);
      query.set('job', job.id);
      return seeOther(reply, `/dashboard/websites/${id}/screenshot?${query.toString()}`);
    } catch (err) {
      if (!(err instanceof FormRejected)) throw err;
      reply.status(422);
      const state: FormState = { values, errors: errorsByField(CAPTURE_REQUEST_FIELDS, err.errors, false) };
      return takeScreenshotPage(viewer, website, CAPTURE_REQUEST_FIELDS, await this.withSessions(viewer, state), true, null).toString();
    }
  }

  /** A form's state with the account's saved sessions, which its Saved session field offers. */
  private async withSessions(viewer: DashboardViewer, state: FormState): Promise<FormState> {
    return { ...state, sessions: await this.sessionChoices.of(viewer.account.id) };
  }

  private hasAccess(viewer: DashboardViewer): boolean {
    return viewer.account.hasApiAccess(this.clock.now());
  }

  /** Changing websites and capturing need API access, as on the API (plan_no_api_access → the 403 page). */
  private requireAccess(viewer: DashboardViewer): void {
    if (!this.hasAccess(viewer)) throw new PlanNoApiAccessError(viewer.account.plan);
  }

  private async setStatus(viewer: DashboardViewer, id: number, status: WebsiteProps['status'], reply: FastifyReply): Promise<string> {
    await this.websites.get(viewer.account.id, id);
    this.requireAccess(viewer);
    await this.websites.update(viewer.account.id, id, { status });
    return seeOther(reply, `/dashboard/websites?notice=website-${status === 'paused' ? 'paused' : 'resumed'}`);
  }

  /** The website form as typed, secrets shown "********" after an error put back from the sealed carry. */
  private typedWebsiteForm(viewer: DashboardViewer, request: DashboardRequest): URLSearchParams {
    const form = formFields(request);
    const values = pickValues(WEBSITE_FIELDS, form);
    const carried = this.openCarry(viewer, form.get('_carry'));
    return carried ? unmaskSecrets(values, carried) : values;
  }

  /** The API body of a form, validated by the API's DTO (same rules and messages); FormRejected if it fails. */
  private async parse<T>(metatype: new () => T, fields: readonly FormField[], values: URLSearchParams, nestOptions: boolean): Promise<T> {
    const { body, errors: textErrors } = formToBody(fields, values, nestOptions);
    const { dto, errors } = await validateBody(this.urlPolicy, metatype, body);
    if (textErrors.length || !dto) throw new FormRejected([...textErrors, ...errors]);
    return dto;
  }

  private rejectedState(viewer: DashboardViewer, values: URLSearchParams, err: FormRejected, fields: readonly FormField[], nestOptions: boolean): FormState {
    const secrets = typedSecrets(values);
    return {
      values: maskSecrets(values),
      errors: errorsByField(fields, err.errors, nestOptions),
      carry: secrets ? this.secretBox.seal(JSON.stringify({ session: this.secretBox.digest(viewer.session.csrfToken), secrets })) : undefined,
    };
  }

  /** Typed secrets carried by the form, if sealed by us for this very session. */
  private openCarry(viewer: DashboardViewer, sealed: string | null): Record<string, string> | null {
    if (!sealed) return null;
    try {
      const carried = JSON.parse(this.secretBox.open(sealed)) as { session: string; secrets: Record<string, string> };
      return carried.session === this.secretBox.digest(viewer.session.csrfToken) ? carried.secrets : null;
    } catch {
      return null;
    }
  }
}
