import { Get, Headers, HttpCode, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { replyWithStoredBytes, replyWithStoredFile } from '../../../shared/http/conditional';
import { IdParam } from '../../../shared/http/id-param';
import { parseId } from '../../../shared/http/validation';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { BULK_DOWNLOAD_MAX_IDS } from '../../screenshots/domain/screenshot';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { DashboardQueries, GalleryFilter } from '../application/dashboard-queries';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { DASHBOARD_PAGE_SIZE, HtmlPage, idQuery, lastPage, pageParam, pickerSearch, seeOther } from './responses';
import { PICKER_LIMIT } from './views/components';
import { WebsiteNames } from './website-names';
import { bulkDeleteConfirmPage, GalleryQuery, galleryPage, screenshotPage } from './views/pages/screenshots.page';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A `YYYY-MM-DD` day (UTC) as typed in a date field, or undefined when it is not one. */
function dayParam(raw: string | undefined): string | undefined {
  if (!raw || !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return undefined;
  const day = new Date(`${raw}T00:00:00.000Z`);
  return Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== raw ? undefined : raw;
}

/** The ids of a bulk form (`ids`, repeated), the unreadable ones dropped. */
function selectedIds(request: DashboardRequest): number[] {
  return [
    ...new Set(
      formFields(request)
        .getAll('ids')
        .map(parseId)
        .filter((id): id is number => id !== null),
    ),
  ];
}

/** The gallery: thumbnails newest first with where they came from, filters and search, lightbox, ZIP of a selection (Pro/Business), delete. */
@DashboardController('dashboard/screenshots')
export class ScreenshotsPageController {
  constructor(
    private readonly screenshots: ScreenshotsService,
    private readonly names: WebsiteNames,
    private readonly queries: DashboardQueries,
  ) {}

  @Get()
  @HtmlPage()
  async gallery(
    @Viewer() viewer: DashboardViewer,
    @Query('page') rawPage?: string,
    @Query('website_id') rawWebsite?: string,
    @Query('from') rawFrom?: string,
    @Query('to') rawTo?: string,
    @Query('q') rawSearch?: string,
    @Query('notice') notice?: string,
    @Query('site') rawSite?: string,
  ) {
    const accountId = viewer.account.id;
    const page = pageParam(rawPage);
    const query: GalleryQuery = {
      websiteId: idQuery(rawWebsite),
      from: dayParam(rawFrom),
      to: dayParam(rawTo),
      q: typeof rawSearch === 'string' && rawSearch.trim() ? rawSearch.trim().slice(0, 200) : undefined,
      site: pickerSearch(rawSite),
    };
    const filter: GalleryFilter = {
      websiteId: query.websiteId,
      from: query.from ? new Date(`${query.from}T00:00:00.000Z`) : undefined,
      // "To" is the last day shown, whole.
      until: query.to ? new Date(new Date(`${query.to}T00:00:00.000Z`).getTime() + DAY_MS) : undefined,
      search: query.q,
    };
    const { items, total } = await this.queries.gallery(accountId, filter, { page, perPage: DASHBOARD_PAGE_SIZE });
    const [websites, sources, websiteNames] = await Promise.all([
      this.queries.websiteChoices(accountId, query.site, query.websiteId, PICKER_LIMIT),
      this.queries.sources(accountId, items),
      this.names.of(
        accountId,
        items.map((s) => s.websiteId),
      ),
    ]);
    return galleryPage(viewer, {
      shots: items,
      sources,
      websiteNames,
      websites,
      query,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
      canZip: viewer.account.allowsBulkDownload(),
      notice,
    }).toString();
  }

  /**
   * "Delete selected": every id must be the account's (else a 404 page and nothing is deleted). Without the
   * `confirmed` field (no script asked) the selection is shown again with one button that deletes it.
   */
  @Post('delete')
  @HttpCode(200)
  @HtmlPage()
  async bulkDelete(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const accountId = viewer.account.id;
    const ids = selectedIds(request);
    if (ids.length === 0) return seeOther(reply, '/dashboard/screenshots?notice=nothing-selected');
    if (ids.length > BULK_DOWNLOAD_MAX_IDS) throw ValidationFailedError.of('ids', `select at most ${BULK_DOWNLOAD_MAX_IDS} screenshots`);
    const shots = await this.queries.shotsByIds(accountId, ids);
    if (shots.length !== ids.length) throw new NotFoundError('Screenshot');
    if (formFields(request).get('confirmed') !== '1') {
      const names = await this.names.of(
        accountId,
        shots.map((s) => s.websiteId),
      );
      return bulkDeleteConfirmPage(viewer, shots, names).toString();
    }
    for (const id of ids) await this.screenshots.delete(accountId, id);
    return seeOther(reply, '/dashboard/screenshots?notice=screenshots-deleted');
  }

  /** "Download selected as ZIP": the API's bulk download, same plan rule and limits. */
  @Post('download')
  @HttpCode(200)
  async zip(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const ids = selectedIds(request);
    if (ids.length === 0) return seeOther(reply, '/dashboard/screenshots?notice=nothing-selected');
    if (ids.length > BULK_DOWNLOAD_MAX_IDS) throw ValidationFailedError.of('ids', `select at most ${BULK_DOWNLOAD_MAX_IDS} screenshots`);
    const archive = await this.screenshots.zipArchive(viewer.account, ids);
    reply.header('Content-Type', 'application/zip');
    reply.header('Content-Disposition', `attachment; filename="screenshots-${Date.now()}.zip"`);
    return new StreamableFile(archive, { type: 'application/zip' });
  }

  @Get(':id')
  @HtmlPage()
  async show(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    const shot = await this.screenshots.get(viewer.account.id, id);
    const name = (await this.names.of(viewer.account.id, [shot.websiteId])).get(shot.websiteId) ?? `Website ${shot.websiteId}`;
    const source = (await this.queries.sources(viewer.account.id, [shot])).get(shot.id);
    return screenshotPage(viewer, shot, name, { source }).toString();
  }

  @Get(':id/image')
  async image(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.sendPng(viewer, id, ifNoneMatch, reply, 'inline');
  }

  @Get(':id/download')
  async download(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.sendPng(viewer, id, ifNoneMatch, reply, 'attachment');
  }

  /** The same thumbnail as GET /screenshots/{id}/thumbnail (WebP, made once, kept by the browser). */
  @Get(':id/thumbnail')
  async thumbnail(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const thumbnail = await this.screenshots.thumbnail(viewer.account.id, id);
    return replyWithStoredBytes(reply, ifNoneMatch, thumbnail);
  }

  @Post(':id/delete')
  async delete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.screenshots.delete(viewer.account.id, id);
    return seeOther(reply, '/dashboard/screenshots?notice=screenshot-deleted');
  }

  private async sendPng(viewer: DashboardViewer, id: number, ifNoneMatch: string | undefined, reply: FastifyReply, disposition: 'inline' | 'attachment') {
    return replyWithStoredFile(reply, ifNoneMatch, await this.screenshots.download(viewer.account.id, id), disposition);
  }
}
