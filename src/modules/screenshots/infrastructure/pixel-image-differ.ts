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

/** Rows kept above and below the rows being counted: all the neighbourhood pixelmatch's anti-aliasing test reads. */
const MARGIN = 2;
/**
 * Pixels counted per pixelmatch call, and so the longest the comparison holds the event loop (the API, in embedded
 * mode, answers nothing meanwhile). pixelmatch is synchronous JavaScript, and where every pixel differs it runs its
 * anti-aliasing test on each: larger chunks held the loop past the 300 ms a Redis command may take before its
 * request is answered 503 (seen: a GET answered 503 during the comparison of a white capture with a green one).
 * This size holds it a few ms at worst, its MARGIN rows a small extra (figures: docs/benchmark.md). Equal rows
 * cost only a memcmp and are skipped.
 */
const CHUNK_PIXELS = 65_536;
/** At least 16 rows, so the margin rows stay a small part of a chunk even on a very wide image. */
const chunkRows = (width: number) => Math.max(16, Math.floor(CHUNK_PIXELS / Math.max(1, width)));

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * pixelmatch over rows [from, to) with MARGIN rows of context on each side (fewer at the image's edges): the output
 * of those rows is exactly what one whole-image call draws for them (every pixel's anti-aliasing test, and the
 * image-edge rule, which only margin rows meet, reads the same). Returns the output and where row `from` starts in it.
 */
function matchRows(a: Buffer, b: Buffer, width: number, height: number, from: number, to: number, options: pixelmatch.PixelmatchOptions) {
  const stride = width * 4;
  const top = Math.max(0, from - MARGIN);
  const bottom = Math.min(height, to + MARGIN);
  const out = Buffer.alloc((bottom - top) * stride);
  pixelmatch(a.subarray(top * stride, bottom * stride), b.subarray(top * stride, bottom * stride), out, width, bottom - top, {
    threshold: THRESHOLD,
    ...options,
  });
  return { out, offset: (from - top) * stride };
}

/**
 * pixelmatch's count over the whole image, computed only where rows differ, a chunk of rows at a time. Equal rows
 * (memcmp: Buffer.compare, a few ms for a 16,384 px page) hold no changed pixel, so a change in one place of a long
 * page costs pixelmatch on that place, not on the page. Each chunk is matched with MARGIN rows above and below and
 * only its own rows are counted (pixelmatch's diff mask): every pixel's anti-aliasing test (its 3×3 neighbours and
 * theirs, and the image-edge rule, which only the margin rows meet) reads what it reads in the whole image, so the
 * count is exactly pixelmatch's over the whole image (int-spec).
 */
async function changedPixels(a: Buffer, b: Buffer, width: number, height: number): Promise<number> {
  const stride = width * 4;
  const equal = (y: number) => a.compare(b, y * stride, (y + 1) * stride, y * stride, (y + 1) * stride) === 0;
  const rows = chunkRows(width);
  let changed = 0;
  let y = 0;
  while (y < height) {
    if (equal(y)) {
      y++;
      continue;
    }
    // A chunk: from this differing row to the last differing row before a run of equal rows, at most `rows`.
    let end = y + 1;
    for (let run = 0; end < height && end - y < rows + run; end++) {
      run = equal(end) ? run + 1 : 0;
      if (run > 2 * MARGIN) break;
    }
    while (end > y + 1 && equal(end - 1)) end--;
    const { out: mask, offset } = matchRows(a, b, width, height, y, end, { diffMask: true });
    // Changed pixels are drawn opaque on the transparent mask; anti-aliased ones are not drawn at all.
    for (let i = offset + 3; i < offset + (end - y) * stride; i += 4) if (mask[i] !== 0) changed++;
    y = end;
    await yieldToEventLoop();
  }
  return changed;
}

/**
 * Image comparison with pixelmatch on pixels decoded by sharp (any of our image formats), the only code that
 * imports pixelmatch. Costs measured in docs/change-history.md.
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
    const changedInOverlap = width > 0 && height > 0 ? await changedPixels(a, b, width, height) : 0;
    return { changedInOverlap, newer: { width: newer.width, height: newer.height }, older: { width: older.width, height: older.height } };
  }

  async diffImage(newerFile: Buffer, olderFile: Buffer, masks: { newer: Box[]; older: Box[] }): Promise<Buffer> {
    const [newer, older] = await Promise.all([decode(newerFile), decode(olderFile)]);
    const { width, height, a, b } = overlap(newer, older, masks);
    const out = Buffer.allocUnsafe(newer.width * newer.height * 4);
    const stride = width * 4;
    // The overlap by pixelmatch, chunkRows() rows at a time with MARGIN rows of context (each pixel drawn as in one
    // whole-image call), yielding between chunks so the event loop stays responsive (as changedPixels).
    const rows = chunkRows(width);
    for (let y = 0; y < height; y += rows) {
      const end = Math.min(height, y + rows);
      const { out: chunk, offset } = matchRows(a, b, width, height, y, end, { alpha: DIM, diffColor: CHANGED, aaColor: ANTI_ALIASED });
      for (let row = y; row < end; row++) chunk.copy(out, row * newer.width * 4, offset + (row - y) * stride, offset + (row - y + 1) * stride);
      await yieldToEventLoop();
    }
    // Beyond the overlap (the newer page grew, or is wider) everything counts as changed: the newer pixels, tinted.
    const tintRows = chunkRows(newer.width);
    for (let y = 0; y < newer.height; y++) {
      for (let x = y < height ? width : 0; x < newer.width; x++) {
        const i = (y * newer.width + x) * 4;
        const grey = 0.299 * newer.data[i] + 0.587 * newer.data[i + 1] + 0.114 * newer.data[i + 2];
        out[i] = Math.round(CHANGED[0] * 0.6 + grey * 0.4);
        out[i + 1] = Math.round(CHANGED[1] * 0.6 + grey * 0.4);
        out[i + 2] = Math.round(CHANGED[2] * 0.6 + grey * 0.4);
        out[i + 3] = 255;
      }
      if (y % tintRows === tintRows - 1) await yieldToEventLoop();
    }
    for (const box of clipBoxes([...masks.newer, ...masks.older], newer.width, newer.height)) fill(out, newer.width, box, [...MASKED, 255]);
    return sharp(out, { raw: { width: newer.width, height: newer.height, channels: 4 }, limitInputPixels: false })
      .png({ compressionLevel: 6 })
      .toBuffer();
  }
}
