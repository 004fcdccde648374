/**
 * Full-page images of tall pages. One capture surface is kept within Chromium's maximum texture size (16,384
 * device px): GPU builds render nothing beyond it. A taller page is captured in tiles (clip screenshots with
 * captureBeyondViewport, so the viewport and its 100vh layouts stay as asked) and stitched with sharp.
 */
import type { Page } from 'puppeteer';
import sharp, { type OverlayOptions } from 'sharp';
import { imageSize } from 'image-size';

/** Chromium's maximum texture size, in device pixels: the tallest single capture. */
export const MAX_TILE_DEVICE_PX = 16_384;

/** The tallest image each format can hold, in device pixels (WebP: 16,383; JPEG: 65,535; PNG: kept the same). */
const MAX_IMAGE_SIDE: Record<'png' | 'jpeg' | 'webp', number> = { png: 65_535, jpeg: 65_535, webp: 16_383 };

/**
 * A bound on the stitched image's pixels (about 400 MB of RGBA while it is assembled): 1280 px wide, that is a
 * 78,125 px page at scale 1, 19,531 at scale 2.
 */
const MAX_IMAGE_PIXELS = 100_000_000;

/**
 * The tallest full page (CSS px) an image of this format, width and scale factor can hold: the configured
 * maximum, lowered where the format or the memory bound would not hold it. A page taller than this is cut
 * here, and the capture report says so (truncated).
 */
export function fullPageMaxHeight(format: 'png' | 'jpeg' | 'webp', width: number, deviceScaleFactor: number, configuredMax: number): number {
  const bySide = Math.floor(MAX_IMAGE_SIDE[format] / deviceScaleFactor);
  const byArea = Math.floor(MAX_IMAGE_PIXELS / (width * deviceScaleFactor * deviceScaleFactor));
  return Math.max(1, Math.min(configuredMax, bySide, byArea));
}

export interface ImageEncoding {
  type: 'png' | 'jpeg' | 'webp';
  quality?: number;
  omitBackground: boolean;
  optimizeForSpeed: boolean;
}

/**
 * The page from its top, `width` × `height` CSS px, in one capture when it fits the texture limit, else in
 * tiles stitched together and encoded once in the asked format.
 */
export async function fullPageImage(page: Page, encoding: ImageEncoding, width: number, height: number, deviceScaleFactor: number): Promise<Uint8Array> {
  const tileHeight = Math.floor(MAX_TILE_DEVICE_PX / deviceScaleFactor);
  if (height <= tileHeight) {
    return page.screenshot({ ...encoding, clip: { x: 0, y: 0, width, height }, captureBeyondViewport: true });
  }
  // Tiles as PNG (lossless, fast encoder): the one lossy encoding is the final one.
  const tiles: OverlayOptions[] = [];
  let top = 0;
  let imageWidth = 0;
  for (let y = 0; y < height; y += tileHeight) {
    const clip = { x: 0, y, width, height: Math.min(tileHeight, height - y) };
    const tile = Buffer.from(
      await page.screenshot({ type: 'png', omitBackground: encoding.omitBackground, optimizeForSpeed: true, clip, captureBeyondViewport: true }),
    );
    // Placed by their real sizes: a fractional scale factor rounds each tile's pixels.
    const size = imageSize(tile);
    tiles.push({ input: tile, top, left: 0 });
    top += size.height ?? 0;
    imageWidth = Math.max(imageWidth, size.width ?? 0);
  }
  const canvas = sharp({
    create: { width: imageWidth, height: top, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    limitInputPixels: false,
  }).composite(tiles);
  switch (encoding.type) {
    case 'jpeg':
      return canvas
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: encoding.quality ?? 80 })
        .toBuffer();
    case 'webp':
      return canvas.webp({ quality: encoding.quality ?? 80 }).toBuffer();
    case 'png':
      return canvas.png({ compressionLevel: encoding.optimizeForSpeed ? 1 : 6 }).toBuffer();
  }
}
