import { Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { IdParam } from '../../../shared/http/id-param';
import { UuidParam } from '../../../shared/http/uuid-param';
import { UrlPolicy } from '../../../shared/url-policy';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import type { ScenarioProps } from '../../scenarios/domain/scenario';
import { CreateScenarioDto } from '../../scenarios/http/dto';
import { apiFieldErrors, errorsByField, fieldErrorsOf, idField } from './api-form-validation';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { DashboardQueries } from '../application/dashboard-queries';
import { HtmlPage, idQuery, pickerSearch, seeOther } from './responses';
import { FIND_WEBSITE_FIELD, PICKER_LIMIT } from './views/components';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { applyOp, carrySecrets, draftsFromForm, draftsFromSteps, focusAfter, parseOp, rawSteps, SecretCarry, uncarrySecrets } from './step-form';
import { SessionChoices } from './session-choices';
import { WebsiteNames } from './website-names';
import { executionPage } from './views/pages/execution.page';
import { deleteScenarioPage, ScenarioForm, scenarioEditorPage } from './views/pages/scenario-editor.page';

/** How many of a scenario's runs its editor lists. */
const RECENT_RUNS = 10;

/**
 * The scenario editor (create, edit, delete) and a run's detail page. The form works without JavaScript: the
 * steps travel as indexed fields, and the add / remove / move buttons post the form, which comes back with the
 * change applied and everything typed kept. Saving judges the form as POST /scenarios judges its JSON.
 */
@DashboardController()
export class ScenarioEditorController {
  constructor(
    private readonly scenarios: ScenariosService,
    private readonly names: WebsiteNames,
    private readonly queries: DashboardQueries,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly secretBox: SecretBox,
    private readonly sessionChoices: SessionChoices,
  ) {}

  /** Typed secret fill values carried by a re-shown form, sealed for this session only (as the website form does). */
  private secretCarry(viewer: DashboardViewer): SecretCarry {
    const session = this.secretBox.digest(viewer.session.csrfToken);
    return {
      seal: (value) => this.secretBox.seal(JSON.stringify({ session, value })),
      open: (sealed) => {
        try {
          const carried = JSON.parse(this.secretBox.open(sealed)) as { session?: unknown; value?: unknown };
          return carried.session === session && typeof carried.value === 'string' ? carried.value : null;
        } catch {
          return null;
        }
      },
    };
  }

  @Get('scenarios/new')
  @HtmlPage()
  async newForm(@Viewer() viewer: DashboardViewer, @Query('website_id') website?: string) {
    const form: ScenarioForm = { name: '', description: '', websiteId: idQuery(website)?.toString() ?? '', sessionId: '', steps: [] };
    return this.page(viewer, null, form);
  }

  @Post('scenarios/new')
  @HtmlPage()
  @HttpCode(200)
  create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.submit(viewer, null, request, reply);
  }

  @Get('scenarios/:id/edit')
  @HtmlPage()
  async editForm(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Query('notice') notice?: string) {
    const scenario = await this.scenarios.get(viewer.account.id, id);
    const form: ScenarioForm = {
      name: scenario.name,
      description: scenario.description ?? '',
      websiteId: String(scenario.websiteId),
      sessionId: scenario.sessionId === null ? '' : String(scenario.sessionId),
      steps: draftsFromSteps(scenario.steps),
    };
    return this.page(viewer, scenario, form, { notice });
  }

  @Post('scenarios/:id/edit')
  @HtmlPage()
  @HttpCode(200)
  async update(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const scenario = await this.scenarios.get(viewer.account.id, id);
    return this.submit(viewer, scenario, request, reply);
  }

  @Get('scenarios/:id/delete')
  @HtmlPage()
  async confirmDelete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    return deleteScenarioPage(viewer, await this.scenarios.get(viewer.account.id, id)).toString();
  }

  @Post('scenarios/:id/delete')
  async delete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.scenarios.get(viewer.account.id, id);
    this.requireAccess(viewer);
    await this.scenarios.delete(viewer.account.id, id);
    return seeOther(reply, '/dashboard/scenarios?notice=scenario-deleted');
  }

  @Get('executions/:id')
  @HtmlPage()
  async execution(@Viewer() viewer: DashboardViewer, @Param('id', UuidParam) id: string, @Query('notice') notice?: string) {
    const accountId = viewer.account.id;
    const { job, screenshotIds } = await this.scenarios.execution(accountId, id);
    const scenario = job.scenarioId === null ? null : await this.scenarios.get(accountId, job.scenarioId).catch(() => null);
    const websiteName = job.websiteId === null ? null : ((await this.names.of(accountId, [job.websiteId])).get(job.websiteId) ?? null);
    return executionPage(viewer, {
      job,
      screenshotIds,
      scenario: scenario ? { id: scenario.id, name: scenario.name } : null,
      websiteName,
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      notice,
    }).toString();
  }

  private async submit(viewer: DashboardViewer, scenario: ScenarioProps | null, request: DashboardRequest, reply: FastifyReply): Promise<string> {
    const fields = formFields(request);
    const form: ScenarioForm = {
      name: fields.get('name') ?? '',
      description: fields.get('description') ?? '',
      websiteId: fields.get('website_id') ?? '',
      sessionId: fields.get('session_id') ?? '',
      steps: uncarrySecrets(draftsFromForm(fields), this.secretCarry(viewer)),
    };
    const site = fields.get('site') ?? '';
    // The website chooser's Find: the form again with the narrowed choices and what was typed, nothing saved.
    if (fields.has(FIND_WEBSITE_FIELD)) return this.page(viewer, scenario, form, { site });
    const op = parseOp(fields.get('op'));
    if (op.kind !== 'save') {
      form.steps = applyOp(form.steps, op);
      return this.page(viewer, scenario, form, { focusStep: focusAfter(op, form.steps.length), site });
    }

    this.requireAccess(viewer);
    // The JSON an API client would send for this form, judged by the API's own DTO and step parser.
    const body = {
      name: form.name,
      description: form.description === '' ? null : form.description,
      website_id: idField(form.websiteId),
      session_id: form.sessionId === '' ? null : idField(form.sessionId),
      steps: rawSteps(form.steps),
    };
    let errors = await apiFieldErrors(this.urlPolicy, CreateScenarioDto, body);
    if (errors.length === 0) {
      const accountId = viewer.account.id;
      const input = {
        name: body.name,
        description: body.description,
        websiteId: body.website_id as number,
        sessionId: body.session_id as number | null,
        steps: body.steps,
      };
      try {
        const saved = scenario ? await this.scenarios.update(accountId, scenario.id, input) : await this.scenarios.create(accountId, input);
        return seeOther(reply, `/dashboard/scenarios/${saved.id}/edit?notice=${scenario ? 'scenario-saved' : 'scenario-created'}`);
      } catch (err) {
        errors = fieldErrorsOf(err);
      }
    }
    reply.status(422);
    return this.page(viewer, scenario, form, { errors: errorsByField(errors), site });
  }

  /** Saving and deleting need API access, as on the API (plan_no_api_access → the 403 page); editing the form does not. */
  private requireAccess(viewer: DashboardViewer): void {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
  }

  private async page(
    viewer: DashboardViewer,
    scenario: ScenarioProps | null,
    form: ScenarioForm,
    extra: { errors?: Map<string, string>; focusStep?: number | null; notice?: string; site?: string } = {},
  ): Promise<string> {
    const accountId = viewer.account.id;
    const recentRuns = scenario ? (await this.scenarios.executions(accountId, scenario.id, { page: 1, perPage: RECENT_RUNS })).items.map((e) => e.job) : [];
    return scenarioEditorPage(viewer, {
      scenario,
      // A secret value typed in this form is never written back into the page: "********" and its sealed carry.
      form: { ...form, steps: carrySecrets(form.steps, this.secretCarry(viewer)) },
      websites: await this.queries.websiteChoices(accountId, pickerSearch(extra.site), idQuery(form.websiteId), PICKER_LIMIT),
      site: extra.site ?? '',
      sessions: await this.sessionChoices.of(accountId),
      errors: extra.errors ?? new Map<string, string>(),
      focusStep: extra.focusStep ?? null,
      recentRuns,
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      notice: extra.notice,
    }).toString();
  }
}
