import { Injectable } from '@nestjs/common';
import { ChangedTextLines } from '../../notifications/application/ports';
import { ScreenshotsService } from './screenshots.service';

/** The notifications' ChangedTextLines port, answered from the text diff GET /screenshots/{id}/text-diff serves. */
@Injectable()
export class ScreenshotChangedTextLines extends ChangedTextLines {
  constructor(private readonly screenshots: ScreenshotsService) {
    super();
  }

  firstLines(accountId: number, screenshotId: number, max: number): Promise<string[]> {
    return this.screenshots.firstChangedTextLines(accountId, screenshotId, max);
  }
}
