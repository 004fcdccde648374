import { Injectable } from '@nestjs/common';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { ChangedTextLines } from '../application/ports';

/**
 * ChangedTextLines answered by the screenshots context: its service reads the head of the text diff that
 * GET /screenshots/{id}/text-diff serves and picks the lines. The adapter sits here, not in screenshots, because
 * contexts form no cycle (CONTEXT_IMPORTS): notifications may import screenshots, never the other way round.
 */
@Injectable()
export class ScreenshotChangedTextLines extends ChangedTextLines {
  constructor(private readonly screenshots: ScreenshotsService) {
    super();
  }

  firstLines(accountId: number, screenshotId: number, max: number): Promise<string[]> {
    return this.screenshots.firstChangedTextLines(accountId, screenshotId, max);
  }
}
