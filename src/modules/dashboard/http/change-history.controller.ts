import { Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { replyWithStoredBytes } from '../../../shared/http/conditional';
import { IdParam } from '../../../shared/http/id-param';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import type { ScreenshotProps } from '../../screenshots/domain/screenshot';
import { WebsitesService } from '../../websites/application/websites.service';
import { loadCompareView, notFoundAsNull } from './compare-view';
import { DashboardQueries } from '../application/dashboard-queries';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardViewer, Viewer } from './dashboard-request';
import { DASHBOARD_PAGE_SIZE, HtmlPage, lastPage, pageParam } from './responses';
import { comparePage } from './views/pages/compare.page';
import { changeState, historyPage, textChanged } from './views/pages/history.page';
import { TextDiffLine } from './views/text-diff';
import { changedDiffLines, TEXT_RULES } from '../../screenshots/domain/text-change';

/** The compare view looks this far (newest first) for the capture that follows the one shown. */
const NEXT_SCAN = { perPage: 100, pages: 10 } as const;

/**
 * Change history in the dashboard (issue 20, API.md "Change history"): a website's captures as a timeline with
 * their change badges, and a before/after view of one capture with the diff. Everything is read through
 * ScreenshotsService and WebsitesService, so another account's id is a 404 exactly as in the API.
 */
@DashboardController('dashboard')
export class ChangeHistoryController {
  constructor(
    private readonly screenshots: ScreenshotsService,
    private readonly websites: WebsitesService,
    private readonly queries: DashboardQueries,
  ) {}

  @Get('websites/:id/history')
  @HtmlPage()
  async history(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Query('page') rawPage?: string,
    @Query('changes') changes?: string,
    @Query('notice') notice?: string,
  ) {
    const accountId = viewer.account.id;
    const website = await this.websites.get(accountId, id); // another account's website is 404
    const page = pageParam(rawPage);
    const changesOnly = changes === '1' || changes === 'on' || changes === 'true';
    const request = { page, perPage: DASHBOARD_PAGE_SIZE };
    const { items, total } = changesOnly
      ? await this.screenshots.changesOf(accountId, id, request)
      : await this.screenshots.list(accountId, request, { websiteId: id });
    // The first changed lines of each text change on this page (small stored objects, one read each).
    const textPreviews = new Map<number, TextDiffLine[]>();
    for (const shot of items) {
      if (!textChanged(changeState(shot))) continue;
      const patch = await this.textDiffOf(accountId, shot.id);
      if (patch !== null) textPreviews.set(shot.id, changedDiffLines(patch, TEXT_RULES.previewLines));
    }
    return historyPage(viewer, {
      website,
      shots: items,
      changesOnly,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
      textPreviews,
      checks: await this.queries.websiteChecks(accountId, id),
      notice,
    }).toString();
  }

  @Get('screenshots/:id/compare')
  @HtmlPage()
  async compare(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    const view = await loadCompareView(this.screenshots, this.websites, viewer.account.id, id);
    const next = await this.nextInHistory(viewer.account.id, view.shot);
    return comparePage(viewer, { ...view, next }).toString();
  }

  /** The visible text kept with a capture (GET /screenshots/{id}/text), as text/plain. */
  @Get('screenshots/:id/text')
  async text(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return replyWithStoredBytes(reply, ifNoneMatch, await this.screenshots.text(viewer.account.id, id));
  }

  /** The unified diff of that text with the compared capture's (GET /screenshots/{id}/text-diff), as text/plain. */
  @Get('screenshots/:id/text-diff')
  async textDiff(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return replyWithStoredBytes(reply, ifNoneMatch, await this.screenshots.textDiff(viewer.account.id, id));
  }

  private async textDiffOf(accountId: number, id: number): Promise<string | null> {
    return this.screenshots.textDiff(accountId, id).then((answer) => answer.data.toString('utf8'), notFoundAsNull);
  }

  /** The diff PNG (ChangeDetector.diff, as GET /screenshots/{id}/diff), cached like the dashboard's other images. */
  @Get('screenshots/:id/diff')
  async diff(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const diff = await this.screenshots.diff(viewer.account.id, id);
    return replyWithStoredBytes(reply, ifNoneMatch, diff);
  }

  /**
   * The capture that follows `shot` in its history (the oldest newer capture of the website with the same
   * settings): null when there is none, undefined when it lies beyond the newest NEXT_SCAN captures.
   */
  private async nextInHistory(accountId: number, shot: ScreenshotProps): Promise<ScreenshotProps | null | undefined> {
    if (!shot.compareKey) return null;
    let next: ScreenshotProps | null = null;
    for (let page = 1; page <= NEXT_SCAN.pages; page++) {
      const { items } = await this.screenshots.list(accountId, { page, perPage: NEXT_SCAN.perPage }, { websiteId: shot.websiteId });
      for (const candidate of items) {
        if (candidate.id <= shot.id) return next; // newest first: everything from here on is older
        if (candidate.compareKey === shot.compareKey) next = candidate;
      }
      if (items.length < NEXT_SCAN.perPage) return next;
    }
    return undefined;
  }
}
