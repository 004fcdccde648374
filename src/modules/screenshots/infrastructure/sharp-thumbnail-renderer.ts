import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { ThumbnailRenderer } from '../application/ports';
import { THUMBNAIL, thumbnailSize } from '../domain/thumbnail';

/**
 * Thumbnails with sharp (libvips); the only code that imports sharp. Scaling to the thumbnail's width and
 * keeping the top (`cover` from the top) is lazy in libvips: a 16,384 px capture is decoded only down to the
 * rows the thumbnail shows, so it costs about what a 1280×800 one does.
 */
@Injectable()
export class SharpThumbnailRenderer extends ThumbnailRenderer {
  async render(png: Buffer): Promise<Buffer> {
    // Our own captures, not uploads: CAPTURE_MAX_HEIGHT × device_scale_factor can pass sharp's default pixel
    // limit, which is there against decompression bombs from untrusted files.
    const options = { limitInputPixels: false } as const;
    const { width, height } = await sharp(png, options).metadata();
    if (!width || !height) throw new Error('not an image');
    const target = thumbnailSize({ width, height });
    return sharp(png, options)
      .resize({ width: target.width, height: target.height, fit: 'cover', position: 'top' })
      .webp({ quality: THUMBNAIL.quality })
      .toBuffer();
  }
}
