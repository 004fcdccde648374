import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { MailPictures } from '../application/ports';

/** How big the picture inside an e-mail may be: the default 1280 px viewport (about twice the 600 px it is shown at), and the top of a tall page. */
export const MAIL_PICTURE = { maxWidth: 1280, maxHeight: 1600, maxBytes: 1024 * 1024, jpegQuality: 82 } as const;

/**
 * MailPictures from the screenshots context's stored file. A PNG or JPEG within MAIL_PICTURE is carried as it is;
 * anything bigger (a full page, a retina capture, a WebP that few mail clients show) becomes a JPEG of its top
 * part, scaled to 1280 px wide at most (transparency on white).
 */
@Injectable()
export class ScreenshotMailPictures extends MailPictures {
  constructor(private readonly screenshots: ScreenshotsService) {
    super();
  }

  async pictureOf(accountId: number, screenshotId: number): Promise<{ content: Buffer; contentType: string; filename: string } | null> {
    let file;
    try {
      file = await this.screenshots.download(accountId, screenshotId);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
    if (!file.contentType.startsWith('image/')) {
      file.stream.destroy();
      return null;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const options = { limitInputPixels: false } as const;
    const { width = 0, height = 0 } = await sharp(bytes, options).metadata();
    const fits = width <= MAIL_PICTURE.maxWidth && height <= MAIL_PICTURE.maxHeight && bytes.length <= MAIL_PICTURE.maxBytes;
    if (fits && (file.contentType === 'image/png' || file.contentType === 'image/jpeg')) {
      return { content: bytes, contentType: file.contentType, filename: `screenshot-${screenshotId}.${file.contentType === 'image/png' ? 'png' : 'jpg'}` };
    }
    const scale = Math.min(1, MAIL_PICTURE.maxWidth / Math.max(1, width));
    const top = Math.min(height, Math.ceil(MAIL_PICTURE.maxHeight / scale));
    const content = await sharp(bytes, options)
      .extract({ left: 0, top: 0, width, height: top })
      .resize({ width: Math.min(width, MAIL_PICTURE.maxWidth) })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: MAIL_PICTURE.jpegQuality })
      .toBuffer();
    return { content, contentType: 'image/jpeg', filename: `screenshot-${screenshotId}.jpg` };
  }
}
