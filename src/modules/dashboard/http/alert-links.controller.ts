import { Get, Headers, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { isImageFormat } from '../../../shared/domain/output-format';
import { replyWithStoredBytes, replyWithStoredFile } from '../../../shared/http/conditional';
import { AlertLinks } from '../../notifications/application/alert-links';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { WebsitesService } from '../../websites/application/websites.service';
import { loadCompareView } from './compare-view';
import { DashboardController } from './dashboard-pages.decorator';
import { CompareUrls, sharedComparePage } from './views/pages/compare.page';

/**
 * The links in notifications (issue 46), opened without a dashboard session: `/links?screenshot=<id>&view=…` signed
 * with the account's system key (AlertLinks). `view=image` answers the screenshot's image, `diff` its diff PNG,
 * `compare` a read-only compare page whose pictures are signed links expiring with it. Everything is read within the
 * link's account: a screenshot of another account (or deleted) is a 404. A tampered or unknown link is 403
 * `invalid_signature`, an expired one 403 `link_expired`, as a page with words (the dashboard's error page).
 * The dashboard's per-address limit and security headers apply.
 */
@DashboardController('links', { signedIn: false })
export class AlertLinksController {
  constructor(
    private readonly alertLinks: AlertLinks,
    private readonly screenshots: ScreenshotsService,
    private readonly websites: WebsitesService,
  ) {}

  @Get()
  async open(@Req() request: FastifyRequest, @Headers('if-none-match') ifNoneMatch: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    const at = request.url.indexOf('?');
    const link = await this.alertLinks.open(at === -1 ? '' : request.url.slice(at + 1));
    // Whoever holds the link may look; search engines may not keep it (pictures are cached privately, as the dashboard's).
    reply.header('X-Robots-Tag', 'noindex, nofollow');
    const { accountId, screenshotId } = link;
    switch (link.view) {
      case 'image': {
        const shot = await this.screenshots.get(accountId, screenshotId);
        if (!isImageFormat(shot.format)) throw new NotFoundError('Screenshot image');
        return replyWithStoredFile(reply, ifNoneMatch, await this.screenshots.download(accountId, screenshotId), 'inline');
      }
      case 'diff':
        return replyWithStoredBytes(reply, ifNoneMatch, await this.screenshots.diff(accountId, screenshotId));
      case 'compare': {
        const view = await loadCompareView(this.screenshots, this.websites, accountId, screenshotId);
        // The page's pictures: signed links to this account's screenshots, no longer valid than the page's own link.
        const signed = new Map<string, string>();
        const ids = [view.shot.id, ...(view.previous ? [view.previous.id] : [])];
        for (const id of ids) signed.set(`image:${id}`, await this.alertLinks.pathFor(accountId, id, 'image', link.expires));
        if (view.diffAvailable) signed.set(`diff:${view.shot.id}`, await this.alertLinks.pathFor(accountId, view.shot.id, 'diff', link.expires));
        const urls: CompareUrls = {
          image: (id) => signed.get(`image:${id}`) ?? '',
          diff: (id) => signed.get(`diff:${id}`) ?? '',
          screenshotPage: () => null,
          text: () => null,
          textDiff: () => null,
        };
        reply.header('Content-Type', 'text/html; charset=utf-8').header('Cache-Control', 'no-store');
        return sharedComparePage({ ...view, next: null }, urls, link.expires).toString();
      }
    }
  }
}
