import { Get, Headers, HttpCode, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { replyWithStoredFile, replyWithStoredImage } from '../../../shared/http/conditional';
import { IdParam } from '../../../shared/http/id-param';
import { parseId } from '../../../shared/http/validation';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { BULK_DOWNLOAD_MAX_IDS } from '../../screenshots/domain/screenshot';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { DASHBOARD_PAGE_SIZE, HtmlPage, idQuery, lastPage, pageParam, seeOther } from './responses';
import { WebsiteNames } from './website-names';
import { galleryPage, screenshotPage } from './views/pages/screenshots.page';

/** The gallery: thumbnails newest first, full size, download, ZIP of a selection (Pro/Business), delete. */
@DashboardController('dashboard/screenshots')
export class ScreenshotsPageController {
  constructor(
    private readonly screenshots: ScreenshotsService,
    private readonly names: WebsiteNames,
  ) {}

  @Get()
  @HtmlPage()
  async gallery(
    @Viewer() viewer: DashboardViewer,
    @Query('page') rawPage?: string,
    @Query('website_id') rawWebsite?: string,
    @Query('notice') notice?: string,
  ) {
    const accountId = viewer.account.id;
    const page = pageParam(rawPage);
    const websiteId = idQuery(rawWebsite);
    const { items, total } = await this.screenshots.list(accountId, { page, perPage: DASHBOARD_PAGE_SIZE }, { websiteId });
    const websites = await this.names.all(accountId);
    return galleryPage(viewer, {
      shots: items,
      websiteNames: new Map(websites.map((w) => [w.id, w.name])),
      websites,
      websiteId,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
      canZip: viewer.account.allowsBulkDownload(),
      notice,
    }).toString();
  }

  /** "Download selected as ZIP": the API's bulk download, same plan rule and limits. */
  @Post('download')
  @HttpCode(200)
  async zip(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const ids = formFields(request)
      .getAll('ids')
      .map(parseId)
      .filter((id): id is number => id !== null);
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
    return screenshotPage(viewer, shot, name).toString();
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
    return replyWithStoredImage(
      reply,
      ifNoneMatch,
      thumbnail.etag,
      () => new StreamableFile(thumbnail.data, { type: thumbnail.contentType, length: thumbnail.size }),
    );
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
