/**
 * The one thumbnail made for every screenshot, for galleries and lists (the dashboard's grid, API clients'
 * previews).
 *
 * - 400 × 300: a 4:3 tile that holds a desktop capture (16:10, 1280×800 → 400×250) whole and stays sharp on a
 *   HiDPI screen at 200 px wide. Never upscaled: a narrower capture keeps its width (a 320 px phone capture
 *   stays 320 wide), since scaling up adds bytes, not detail.
 * - Taller than 300 after scaling to the width (full-page captures, up to 16,384 px): the TOP is kept and the rest
 *   cut off, not squashed — the header and the first screen are what identify a page; a 1:40 sliver identifies
 *   nothing.
 * - WebP at quality 80: far smaller than a PNG for a text-heavy page (figures: docs/benchmark.md), with no
 *   visible artefacts on text at this size; every browser in use decodes WebP.
 */
export const THUMBNAIL = {
  maxWidth: 400,
  maxHeight: 300,
  quality: 80,
  contentType: 'image/webp',
} as const;

export interface ImageSize {
  width: number;
  height: number;
}

/** The thumbnail's size for an image of `source` size: scaled to at most maxWidth (never up), then cut at maxHeight. */
export function thumbnailSize(source: ImageSize): ImageSize {
  if (!(source.width >= 1 && source.height >= 1)) throw new Error(`invalid image size ${source.width}x${source.height}`);
  const width = Math.min(source.width, THUMBNAIL.maxWidth);
  const scaledHeight = Math.max(1, Math.round((source.height * width) / source.width));
  return { width, height: Math.min(scaledHeight, THUMBNAIL.maxHeight) };
}
