/**
 * Full-page images of tall pages. One capture surface is kept within Chromium's maximum texture size (16,384
 * device px): GPU builds render nothing beyond it. A taller page is captured in tiles (clip screenshots with
 * captureBeyondViewport, so the viewport and its 100vh layouts stay as asked) and stitched with sharp.
 */
import type { Page } from 'puppeteer';
import sharp from 'sharp';
import { imageSize } from 'image-size';

/** Chromium's maximum texture size, in device pixels: the tallest single capture. */
export const MAX_TILE_DEVICE_PX = 16_384;

/** The tallest image each format can hold, in device pixels (WebP: 16,383; JPEG: 65,535; PNG: kept the same). */
const MAX_IMAGE_SIDE: Record<'png' | 'jpeg' | 'webp', number> = { png: 65_535, jpeg: 65_535, webp: 16_383 };

/**
 * A bound on the stitched image's pixels (about 400 MB of RGBA while it is assembled): 1280 px wide, that is a
 * 78,125 px page at scale 1, 19,531 at scale 2.
 */
export const MAX_IMAGE_PIXELS = 100_000_000;

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
 * The page from its top, `width` × `height` CSS px (of the page's layout), shown at `zoom` (below 1 for a phone
 * showing a page laid out wider than itself), in one capture when it fits the texture limit, else in tiles
 * stitched together and encoded once in the asked format.
 */
export async function fullPageImage(
  page: Page,
  encoding: ImageEncoding,
  width: number,
  height: number,
  deviceScaleFactor: number,
  zoom = 1,
): Promise<Uint8Array> {
  const tileHeight = Math.floor(MAX_TILE_DEVICE_PX / (deviceScaleFactor * zoom));
  const scale = zoom !== 1 ? { scale: zoom } : {};
  if (height <= tileHeight) {
    return page.screenshot({ ...encoding, clip: { x: 0, y: 0, width, height, ...scale }, captureBeyondViewport: true });
  }
  // Tiles as PNG (lossless, fast encoder): the one lossy encoding is the final one.
  const tiles: Buffer[] = [];
  let imageHeight = 0;
  let imageWidth = 0;
  for (let y = 0; y < height; y += tileHeight) {
    const clip = { x: 0, y, width, height: Math.min(tileHeight, height - y), ...scale };
    const tile = Buffer.from(
      await page.screenshot({ type: 'png', omitBackground: encoding.omitBackground, optimizeForSpeed: true, clip, captureBeyondViewport: true }),
    );
    // Measured, not computed: a fractional scale factor rounds each tile's pixels.
    const size = imageSize(tile);
    tiles.push(tile);
    imageHeight += size.height ?? 0;
    imageWidth = Math.max(imageWidth, size.width ?? 0);
  }
  // Stacked with sharp's join (several times faster than compositing them on a blank canvas; figures: docs/benchmark.md).
  return stackImages(tiles, imageWidth, imageHeight, encoding);
}

/**
 * Images stacked top to bottom with sharp's join, which decodes and places them in one pass, cut to width × height
 * (device px) and encoded once in the asked format. Its grid's cells are the tallest image's size, so a shorter last
 * image leaves a margin below it, cut off here.
 */
export function stackImages(images: Buffer[], width: number, height: number, encoding: ImageEncoding): Promise<Buffer> {
  const canvas = sharp(images, { join: { across: 1, valign: 'top' }, limitInputPixels: false }).extract({ left: 0, top: 0, width, height });
  switch (encoding.type) {
    case 'jpeg':
      return canvas
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: encoding.quality ?? 80 })
        .toBuffer();
    case 'webp':
      return canvas.webp({ quality: encoding.quality ?? 80 }).toBuffer();
    case 'png':
      // libvips' default level (6): no slower than level 1 here, and smaller (figures: docs/benchmark.md).
      return canvas.png().toBuffer();
  }
}
