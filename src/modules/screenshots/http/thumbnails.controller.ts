import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { replyWithStoredBytes } from '../../../shared/http/conditional';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import { ApiBearerController, ApiErrorResponses, ApiFileResponse, ApiIdParam } from '../../../shared/http/openapi';
import type { Account } from '../../accounts/domain/account';
import { ScreenshotsService } from '../application/screenshots.service';

@ApiBearerController('Screenshots')
@Controller('screenshots')
export class ThumbnailsController {
  constructor(private readonly screenshots: ScreenshotsService) {}

  /** The screenshot's thumbnail (WebP, at most 400×300, the top of tall captures); made on first request if missing. */
  @ApiOperation({
    summary: 'Screenshot thumbnail',
    description: 'WebP, at most 400×300: scaled to 400 px wide (never enlarged), tall captures cut from the top.',
  })
  @ApiIdParam('Screenshot')
  @ApiFileResponse('image/webp', 'The thumbnail', { conditional: true })
  @ApiErrorResponses('not_found')
  @Get(':id/thumbnail')
  async thumbnail(
    @CurrentAccount() account: Account,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const thumbnail = await this.screenshots.thumbnail(account.id, id);
    return replyWithStoredBytes(reply, ifNoneMatch, thumbnail);
  }

  @ApiOperation({
    summary: 'Screenshot diff',
    description:
      'Change history: a PNG the size of this screenshot — pixels unchanged since the previous comparable capture dimmed, changed ones in red, ' +
      'ignored boxes (change_ignore_selectors) in light blue, height the previous capture did not have counted as changed. Made on the first request ' +
      '(at once for captures found changed) and kept. 404 when there is no previous capture, or it was deleted before the diff was made.',
  })
  @ApiIdParam('Screenshot')
  @ApiFileResponse('image/png', 'The diff image', { conditional: true })
  @ApiErrorResponses('not_found')
  @Get(':id/diff')
  async diff(
    @CurrentAccount() account: Account,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const diff = await this.screenshots.diff(account.id, id);
    return replyWithStoredBytes(reply, ifNoneMatch, diff);
  }

  @ApiOperation({
    summary: 'Screenshot text',
    description:
      'Text changes: the page’s visible text kept with this capture (as innerText renders it, one line per line, blank lines dropped; the ' +
      'website’s change_ignore_selectors left out; for an element capture, the element’s text), at most 1 MiB of UTF-8. ' +
      '404 when none was kept (PDFs, scenario step shots, captures from before text changes).',
  })
  @ApiIdParam('Screenshot')
  @ApiFileResponse('text/plain', 'The visible text, UTF-8', { conditional: true })
  @ApiErrorResponses('not_found')
  @Get(':id/text')
  async text(
    @CurrentAccount() account: Account,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return replyWithStoredBytes(reply, ifNoneMatch, await this.screenshots.text(account.id, id));
  }

  @ApiOperation({
    summary: 'Screenshot text diff',
    description:
      'Text changes: a unified diff (`--- screenshot <previous_id>`, `+++ screenshot <id>`, `@@` hunks, 3 lines of context) of the visible text ' +
      'against the capture it was compared with (`change.previous_id`); empty of hunks when the text did not change. Made at once when the text ' +
      'changed, else on the first request, and kept. 404 when there is no comparison (or it is still pending), when either capture kept no text, ' +
      'or when the previous capture was deleted before the diff was made.',
  })
  @ApiIdParam('Screenshot')
  @ApiFileResponse('text/plain', 'The unified diff, UTF-8', { conditional: true })
  @ApiErrorResponses('not_found')
  @Get(':id/text-diff')
  async textDiff(
    @CurrentAccount() account: Account,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return replyWithStoredBytes(reply, ifNoneMatch, await this.screenshots.textDiff(account.id, id));
  }
}
