import { Injectable } from '@nestjs/common';
import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import { ImageDiffer, PixelComparison } from '../application/ports';
import { Box, clipBoxes } from '../domain/change';

/**
 * pixelmatch's YIQ distance at which two pixels count as different (its default, 0.1), with its anti-aliasing
 * detection on: a font rendered a sub-pixel differently is not a change, a box of another colour is.
 */
const THRESHOLD = 0.1;
/** Unchanged pixels in the diff image: the newer image in grey, blended this much with white. */
const DIM = 0.15;
const CHANGED: [number, number, number] = [230, 0, 60];
/** Anti-aliased pixels are not changes: drawn a shade above the dimmed background, so edges stay readable. */
const ANTI_ALIASED: [number, number, number] = [215, 215, 215];
const MASKED: [number, number, number] = [190, 210, 255];

interface Rgba {
  data: Buffer;
  width: number;
  height: number;
}

// Our own captures, not uploads: a 16,384 px full page at scale 3 passes sharp's default pixel limit (which is
// there against decompression bombs from untrusted files).
async function decode(image: Buffer): Promise<Rgba> {
  const { data, info } = await sharp(image, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The top-left width×height of an image as its own tightly packed buffer (the image itself when it is that size). */
function crop(image: Rgba, width: number, height: number): Buffer {
  if (image.width === width) return image.data.subarray(0, width * height * 4);
  const out = Buffer.allocUnsafe(width * height * 4);
  for (let y = 0; y < height; y++) image.data.copy(out, y * width * 4, y * image.width * 4, (y * image.width + width) * 4);
  return out;
}

function fill(data: Buffer, imageWidth: number, [x, y, w, h]: Box, rgba: [number, number, number, number]): void {
  for (let row = y; row < y + h; row++) {
    for (let col = x; col < x + w; col++) {
      const i = (row * imageWidth + col) * 4;
      data[i] = rgba[0];
      data[i + 1] = rgba[1];
      data[i + 2] = rgba[2];
      data[i + 3] = rgba[3];
    }
  }
}

/** What the two decoded images share: the overlap of both, with every mask painted alike in both (never a change). */
function overlap(newer: Rgba, older: Rgba, masks: { newer: Box[]; older: Box[] }) {
  const width = Math.min(newer.width, older.width);
  const height = Math.min(newer.height, older.height);
  const a = crop(newer, width, height);
  const b = crop(older, width, height);
  const boxes = clipBoxes([...masks.newer, ...masks.older], width, height);
  for (const box of boxes) {
    fill(a, width, box, [0, 0, 0, 255]);
    fill(b, width, box, [0, 0, 0, 255]);
  }
  return { width, height, a, b };
}

/**
 * Image comparison with pixelmatch on pixels decoded by sharp (any of our image formats), the only code that
 * imports pixelmatch. Costs measured in README "Change history".
 */
@Injectable()
export class PixelImageDiffer extends ImageDiffer {
  async compare(newerFile: Buffer, olderFile: Buffer, masks: { newer: Box[]; older: Box[] }): Promise<PixelComparison> {
    // The common case of a page that did not change: Chromium encodes the same pixels to the same bytes, so equal
    // files are equal images, whatever the masks — known from the header alone, without decoding either.
    if (newerFile.equals(olderFile)) {
      const { width = 0, height = 0 } = await sharp(newerFile, { limitInputPixels: false }).metadata();
      return { changedInOverlap: 0, newer: { width, height }, older: { width, height } };
    }
    const [newer, older] = await Promise.all([decode(newerFile), decode(olderFile)]);
    const { width, height, a, b } = overlap(newer, older, masks);
    const changedInOverlap = width > 0 && height > 0 ? pixelmatch(a, b, null, width, height, { threshold: THRESHOLD }) : 0;
    return { changedInOverlap, newer: { width: newer.width, height: newer.height }, older: { width: older.width, height: older.height } };
  }

  async diffImage(newerFile: Buffer, olderFile: Buffer, masks: { newer: Box[]; older: Box[] }): Promise<Buffer> {
    const [newer, older] = await Promise.all([decode(newerFile), decode(olderFile)]);
    const { width, height, a, b } = overlap(newer, older, masks);
    const out = Buffer.alloc(newer.width * newer.height * 4);
    // Beyond the overlap (the newer page grew) everything counts as changed: the newer pixels, tinted.
    for (let i = 0; i < out.length; i += 4) {
      const grey = 0.299 * newer.data[i] + 0.587 * newer.data[i + 1] + 0.114 * newer.data[i + 2];
      out[i] = Math.round(CHANGED[0] * 0.6 + grey * 0.4);
      out[i + 1] = Math.round(CHANGED[1] * 0.6 + grey * 0.4);
      out[i + 2] = Math.round(CHANGED[2] * 0.6 + grey * 0.4);
      out[i + 3] = 255;
    }
    if (width > 0 && height > 0) {
      const inside = Buffer.alloc(width * height * 4);
      pixelmatch(a, b, inside, width, height, { threshold: THRESHOLD, alpha: DIM, diffColor: CHANGED, aaColor: ANTI_ALIASED });
      for (let y = 0; y < height; y++) inside.copy(out, y * newer.width * 4, y * width * 4, (y + 1) * width * 4);
    }
    for (const box of clipBoxes([...masks.newer, ...masks.older], newer.width, newer.height)) fill(out, newer.width, box, [...MASKED, 255]);
    return sharp(out, { raw: { width: newer.width, height: newer.height, channels: 4 }, limitInputPixels: false })
      .png({ compressionLevel: 6 })
      .toBuffer();
  }
}
