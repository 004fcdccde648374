/**
 * A full page taken viewport by viewport while each part is in view, and stitched (Urlbox's full_page_mode=stitch).
 * Used only when the page needs it (capture-run.ts, fullPageModeScript): content revealed on scroll that hides again
 * when scrolled away (AOS on its defaults, GSAP ScrollTrigger reversing, an IntersectionObserver toggling a class),
 * which a picture beyond the viewport shows blank, and frames below the first screen, which Chromium paints only in
 * view. Fixed and stuck sticky elements are hidden after the first part, so a header does not repeat in every part.
 * Other pages keep the one-surface picture (tall-page.ts): faster, and nothing moves between parts.
 */
import type { Page } from 'puppeteer';
import sharp from 'sharp';

import { settleViewport } from './lazy-reveal';
import { stitchEndScript, stitchScrollScript } from './in-page-scripts';
import { type ImageEncoding, stackImages } from './tall-page';

/** One part may wait this long for what it brought into view (fading in, images). */
const PART_MAX_WAIT_MS = 1_500;

export interface StitchSetup {
  /** The picture's width and height, CSS px (the height already cut at the maximum). */
  width: number;
  height: number;
  viewportHeight: number;
  deviceScaleFactor: number;
  /** Date.now() after which parts are taken without waiting for them. */
  deadline: number;
}

export async function stitchedFullPage(page: Page, encoding: ImageEncoding, setup: StitchSetup): Promise<Uint8Array> {
  const { width, height, viewportHeight, deviceScaleFactor: scale } = setup;
  const parts: Array<{ image: Buffer; y: number }> = [];
  try {
    for (let top = 0; top < height; top += viewportHeight) {
      await settleViewport(page, top, Math.min(setup.deadline, Date.now() + PART_MAX_WAIT_MS));
      const { y } = (await page.evaluate(stitchScrollScript(top, top > 0))) as { y: number };
      const image = Buffer.from(
        await page.screenshot({ type: 'png', omitBackground: encoding.omitBackground, optimizeForSpeed: true, captureBeyondViewport: false }),
      );
      parts.push({ image, y });
      // The browser stops at the page's end: this part already reaches it.
      if (y + viewportHeight >= height || y < top) break;
    }
  } finally {
    await page.evaluate(stitchEndScript).catch(() => undefined);
  }
  // Each part's rows that the previous parts do not already hold (the last part overlaps when the page's end
  // is not a whole viewport further), in device px.
  const pieces: Buffer[] = [];
  let covered = 0;
  for (const { image, y } of parts) {
    const from = Math.max(0, covered - y);
    const rows = Math.min(viewportHeight, height - y) - from;
    if (rows <= 0) continue;
    const meta = await sharp(image).metadata();
    const top = Math.min(Math.round(from * scale), (meta.height ?? 1) - 1);
    const piece = Math.max(1, Math.min(Math.round(rows * scale), (meta.height ?? 0) - top));
    pieces.push(
      await sharp(image)
        .extract({ left: 0, top, width: Math.min(Math.round(width * scale), meta.width ?? 1), height: piece })
        .png({ compressionLevel: 0 })
        .toBuffer(),
    );
    covered = y + from + rows;
  }
  const sizes = await Promise.all(pieces.map((piece) => sharp(piece).metadata()));
  const imageWidth = Math.max(...sizes.map((size) => size.width ?? 0));
  const imageHeight = sizes.reduce((sum, size) => sum + (size.height ?? 0), 0);
  return stackImages(pieces, imageWidth, imageHeight, encoding);
}
