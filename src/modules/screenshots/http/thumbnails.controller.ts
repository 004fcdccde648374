import { Controller, Get, Headers, Param, Res, StreamableFile } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import type { Account } from '../../accounts/domain/account';
import { ScreenshotsService } from '../application/screenshots.service';

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/"x"` matches `"x"`; `*` matches any. */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

@Controller('screenshots')
export class ThumbnailsController {
  constructor(private readonly screenshots: ScreenshotsService) {}

  /** The screenshot's thumbnail (WebP, at most 400×300, the top of tall captures); made on first request if missing. */
  @Get(':id/thumbnail')
  async thumbnail(
    @CurrentAccount() account: Account,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const thumbnail = await this.screenshots.thumbnail(account.id, id);
    reply.header('ETag', thumbnail.etag);
    // A screenshot never changes once stored, and neither does its thumbnail.
    reply.header('Cache-Control', 'private, max-age=31536000, immutable');
    if (notModified(ifNoneMatch, thumbnail.etag)) {
      reply.status(304);
      return undefined;
    }
    return new StreamableFile(thumbnail.data, { type: thumbnail.contentType, length: thumbnail.size });
  }
}
