import sharp from 'sharp';
import { THUMBNAIL, thumbnailSize } from '../domain/thumbnail';
import { BLUE, decodeImage as decode, GREEN, RED, Rgb } from '../../../../test/support/images';
import { SharpThumbnailRenderer } from './sharp-thumbnail-renderer';

/** A PNG of `width`×`height` in `base`, with its top `band.rows` rows (optionally only their left half) in `band.colour`. */
async function png(width: number, height: number, base: Rgb, band?: { rows: number; colour: Rgb; leftHalfOnly?: boolean }): Promise<Buffer> {
  const background = { r: base[0], g: base[1], b: base[2] };
  let image = sharp({ create: { width, height, channels: 3, background } });
  if (band) {
    const w = band.leftHalfOnly ? Math.floor(width / 2) : width;
    const overlay = await sharp({
      create: { width: w, height: band.rows, channels: 3, background: { r: band.colour[0], g: band.colour[1], b: band.colour[2] } },
    })
      .png()
      .toBuffer();
    image = image.composite([{ input: overlay, left: 0, top: 0 }]);
  }
  return image.png().toBuffer();
}

/** Lossy WebP shifts flat colours a little. */
function expectColour(actual: Rgb, expected: Rgb): void {
  for (let c = 0; c < 3; c++) expect(Math.abs(actual[c] - expected[c])).toBeLessThanOrEqual(16);
}

describe('thumbnail sizing rule', () => {
  it('is at most 400 wide and 300 tall, WebP at quality 80', () => {
    expect(THUMBNAIL).toMatchObject({ maxWidth: 400, maxHeight: 300, quality: 80, contentType: 'image/webp' });
  });

  it.each([
    ['desktop 1280×800 keeps its 16:10 aspect', 1280, 800, 400, 250],
    ['a full-page capture at the 16,384 px cap is cut to 300 from the top', 1280, 16384, 400, 300],
    ['4K 3840×2160', 3840, 2160, 400, 225],
    ['exactly the box', 400, 300, 400, 300],
    ['a 320 px phone viewport keeps its width (never upscaled)', 320, 240, 320, 240],
    ['a 320 px wide full page keeps its width and is cut at 300', 320, 5000, 320, 300],
    ['smaller than the box in both directions stays as it is', 200, 100, 200, 100],
    ['a 1 px image stays 1 px', 1, 1, 1, 1],
    ['a very wide, very short image keeps at least one row', 3840, 1, 400, 1],
    ['heights round to the nearest row', 401, 10, 400, 10],
    ['device_scale_factor 3 at 1280×800', 3840, 2400, 400, 250],
  ])('%s: %i×%i → %i×%i', (_, width, height, tw, th) => {
    expect(thumbnailSize({ width, height })).toEqual({ width: tw, height: th });
  });

  it.each([
    [0, 10],
    [10, 0],
    [Number.NaN, 10],
  ])('refuses an image of %s×%s', (width, height) => {
    expect(() => thumbnailSize({ width, height })).toThrow(/invalid image size/);
  });
});

describe('SharpThumbnailRenderer', () => {
  const renderer = new SharpThumbnailRenderer();

  it('1280×800 → a 400×250 WebP showing the same picture (left half red, right half blue)', async () => {
    const thumb = await decode(await renderer.render(await png(1280, 800, BLUE, { rows: 800, colour: RED, leftHalfOnly: true })));
    expect(thumb).toMatchObject({ format: 'webp', width: 400, height: 250 });
    expectColour(thumb.at(50, 125), RED);
    expectColour(thumb.at(350, 125), BLUE);
  });

  it('1280×16384 → 400×300 cut from the top, not squashed: a 640 px green header fills the top 200 rows', async () => {
    // Scaled to 400 wide, the header is 200 rows tall; squashed to 300 rows it would be a 12-row sliver.
    const thumb = await decode(await renderer.render(await png(1280, 16384, RED, { rows: 640, colour: GREEN })));
    expect(thumb).toMatchObject({ format: 'webp', width: 400, height: 300 });
    expectColour(thumb.at(200, 5), GREEN);
    expectColour(thumb.at(200, 150), GREEN);
    expectColour(thumb.at(200, 190), GREEN);
    expectColour(thumb.at(200, 215), RED);
    expectColour(thumb.at(200, 299), RED);
  });

  it('a 320 px wide capture keeps 320 px (never upscaled), a tall one is cut at 300', async () => {
    expect(await decode(await renderer.render(await png(320, 240, GREEN)))).toMatchObject({ width: 320, height: 240 });
    const tall = await decode(await renderer.render(await png(320, 2000, RED, { rows: 100, colour: GREEN })));
    expect(tall).toMatchObject({ width: 320, height: 300 });
    expectColour(tall.at(160, 50), GREEN); // 1:1 scale: the 100 px header is still 100 rows
    expectColour(tall.at(160, 150), RED);
  });

  it('an RGBA PNG (transparent areas) still yields a WebP of the right size', async () => {
    const rgba = await sharp({ create: { width: 800, height: 600, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    expect(await decode(await renderer.render(rgba))).toMatchObject({ format: 'webp', width: 400, height: 300 });
  });

  it('rejects bytes that are not an image', async () => {
    await expect(renderer.render(Buffer.from('not a png at all'))).rejects.toThrow();
  });
});
