import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import { PixelImageDiffer } from './pixel-image-differ';

/** A w×h image of one colour with rectangles of others, encoded as `format`. */
async function image(
  w: number,
  h: number,
  rects: Array<{ x: number; y: number; w: number; h: number; rgb: [number, number, number] }>,
  format: 'png' | 'jpeg' | 'webp' = 'png',
): Promise<Buffer> {
  const composites = await Promise.all(
    rects.map(async (r) => ({
      input: await sharp({ create: { width: r.w, height: r.h, channels: 3, background: { r: r.rgb[0], g: r.rgb[1], b: r.rgb[2] } } })
        .png()
        .toBuffer(),
      left: r.x,
      top: r.y,
    })),
  );
  const base = sharp({ create: { width: w, height: h, channels: 3, background: { r: 255, g: 255, b: 255 } } }).composite(composites);
  return format === 'png' ? base.png().toBuffer() : format === 'jpeg' ? base.jpeg({ quality: 100 }).toBuffer() : base.webp({ lossless: true }).toBuffer();
}

const NO_MASKS = { newer: [], older: [] };

describe('PixelImageDiffer (sharp + pixelmatch)', () => {
  const differ = new PixelImageDiffer();

  it('identical images: nothing changed; a 200×100 box of another colour: exactly its 20,000 pixels', async () => {
    const blue = await image(1280, 800, [{ x: 100, y: 100, w: 200, h: 100, rgb: [0, 0, 255] }]);
    const green = await image(1280, 800, [{ x: 100, y: 100, w: 200, h: 100, rgb: [0, 160, 0] }]);
    expect(await differ.compare(blue, blue, NO_MASKS)).toEqual({
      changedInOverlap: 0,
      newer: { width: 1280, height: 800 },
      older: { width: 1280, height: 800 },
    });
    // The same pixels in other bytes (another PNG compression level) are decoded and compared: still nothing changed.
    const recompressed = await sharp(blue).png({ compressionLevel: 1 }).toBuffer();
    expect(recompressed.equals(blue)).toBe(false);
    expect((await differ.compare(recompressed, blue, NO_MASKS)).changedInOverlap).toBe(0);
    expect((await differ.compare(green, blue, NO_MASKS)).changedInOverlap).toBe(20000);
  });

  it('masks of either image leave their boxes out of the comparison', async () => {
    const a = await image(400, 300, [{ x: 10, y: 10, w: 50, h: 20, rgb: [0, 0, 0] }]);
    const b = await image(400, 300, [{ x: 12, y: 10, w: 50, h: 20, rgb: [0, 0, 0] }]);
    expect((await differ.compare(a, b, NO_MASKS)).changedInOverlap).toBeGreaterThan(0);
    expect((await differ.compare(a, b, { newer: [[10, 10, 52, 20]], older: [] })).changedInOverlap).toBe(0);
    expect((await differ.compare(a, b, { newer: [], older: [[0, 0, 100, 40]] })).changedInOverlap).toBe(0);
  });

  it('any image formats are compared by their pixels: a lossless webp and a png of one picture are equal', async () => {
    const rects = [{ x: 20, y: 20, w: 60, h: 60, rgb: [200, 30, 30] as [number, number, number] }];
    expect((await differ.compare(await image(200, 200, rects, 'webp'), await image(200, 200, rects, 'png'), NO_MASKS)).changedInOverlap).toBe(0);
  });

  it('the diff image: the newer image’s size, the changed box highlighted, unchanged pixels dimmed, extra height marked, masks tinted', async () => {
    const older = await image(300, 200, [{ x: 10, y: 10, w: 40, h: 40, rgb: [0, 0, 255] }]);
    const newer = await image(300, 260, [{ x: 10, y: 10, w: 40, h: 40, rgb: [0, 160, 0] }]);
    const png = await differ.diffImage(newer, older, { newer: [[200, 100, 50, 50]], older: [] });
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect({ width: info.width, height: info.height }).toEqual({ width: 300, height: 260 });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    expect(at(30, 30)).toEqual([230, 0, 60]); // changed
    expect(at(150, 50).every((c) => c > 240)).toBe(true); // unchanged white, dimmed towards white
    expect(at(150, 230)[0]).toBeGreaterThan(at(150, 230)[1] + 100); // below the older image's bottom: changed tint
    expect(at(220, 120)).toEqual([190, 210, 255]); // masked
  });

  it('counting on the bands of rows that differ gives pixelmatch’s count over the whole image (anti-aliased text, boxes near each other and at the edges)', async () => {
    // Text is anti-aliased: its edge pixels are where the band margins matter.
    const text = (y: number, words: string) =>
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="40"><text x="4" y="${y}" font-size="22" font-family="sans-serif">${words}</text></svg>`,
      );
    const page = async (words: string, boxes: Array<{ x: number; y: number; w: number; h: number; rgb: [number, number, number] }>) =>
      sharp(await image(640, 400, boxes))
        .composite([
          { input: text(28, words), left: 10, top: 0 },
          { input: text(28, 'always the same line'), left: 10, top: 200 },
          { input: text(28, words), left: 10, top: 362 },
        ])
        .png()
        .toBuffer();
    const older = await page('the first words', [{ x: 300, y: 0, w: 40, h: 3, rgb: [0, 0, 255] }]);
    const newer = await page('other wording here', [
      { x: 300, y: 0, w: 40, h: 3, rgb: [0, 160, 0] },
      { x: 50, y: 120, w: 30, h: 1, rgb: [200, 0, 0] },
      { x: 50, y: 124, w: 30, h: 1, rgb: [200, 0, 0] },
      { x: 500, y: 398, w: 20, h: 2, rgb: [0, 0, 0] },
    ]);
    const decode = async (png: Buffer) => (await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true })).data;
    const whole = pixelmatch(await decode(newer), await decode(older), null, 640, 400, { threshold: 0.1 });
    expect(whole).toBeGreaterThan(100);
    expect((await differ.compare(newer, older, NO_MASKS)).changedInOverlap).toBe(whole);
  });

  it('a change running down a whole tall page is counted in chunks of rows, yielding between them, and still exactly as pixelmatch counts the whole image', async () => {
    // 1,200 rows of anti-aliased text that differs on every line: one band of changed rows, cut into chunks.
    const lines = (words: string) =>
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="1200">${Array.from(
          { length: 60 },
          (_, i) => `<text x="${4 + (i % 7)}" y="${18 + i * 20}" font-size="17" font-family="sans-serif">${words} ${i}</text>`,
        ).join('')}</svg>`,
      );
    const page = async (words: string) =>
      sharp(await image(640, 1200, []))
        .composite([{ input: lines(words), left: 0, top: 0 }])
        .png()
        .toBuffer();
    const [older, newer] = [await page('the quick brown fox'), await page('a slow red hen jumps')];
    const decode = async (png: Buffer) => (await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true })).data;
    const whole = pixelmatch(await decode(newer), await decode(older), null, 640, 1200, { threshold: 0.1 });
    expect(whole).toBeGreaterThan(5000);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      expect((await differ.compare(newer, older, NO_MASKS)).changedInOverlap).toBe(whole);
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0); // the event loop ran during the comparison

    // The diff image, drawn a chunk at a time too, is pixel for pixel pixelmatch's own picture of the whole image.
    const whole_ = Buffer.alloc(640 * 1200 * 4);
    pixelmatch(await decode(newer), await decode(older), whole_, 640, 1200, { threshold: 0.1, alpha: 0.15, diffColor: [230, 0, 60], aaColor: [215, 215, 215] });
    const drawn = (
      await sharp(await differ.diffImage(newer, older, NO_MASKS))
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true })
    ).data;
    expect(drawn.equals(whole_)).toBe(true);
  });
});
