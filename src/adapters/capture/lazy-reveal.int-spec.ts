/**
 * Integration spec of the full-page reveal and the waits for what a reader would see (real headless Chromium,
 * the real lazy-loading and chart libraries from npm, pages from test/support/hard-pages.ts): every lazy image of
 * a tall page is in a full-page picture, checked by its pixels.
 */
import { renderingFor } from '../../shared/domain/capture-option-rules';
import { chartBarTop, HARD_PAGES, type HardPagesServer, lazyImagesShown, LAZY_COLOURS, readPng, startHardPages } from '../../../test/support/hard-pages';
import type { CaptureRequest } from '../../modules/screenshots/application/capture.port';
import { captureRequest } from '../../../test/support/capture-request';
import { LAZY_SCROLL_BUDGET_MS } from './lazy-reveal';
import { LATE_REQUEST_MAX_AGE_MS } from './page-stability';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(90_000);

describe('full-page reveal (real Chromium, real lazy-loading libraries)', () => {
  let pages: HardPagesServer;
  let capturer: PuppeteerPageCapturer;

  function request(path: string, overrides: Partial<CaptureRequest> = {}): CaptureRequest {
    return captureRequest(`${pages.url}${path}`, overrides);
  }

  beforeAll(async () => {
    pages = await startHardPages();
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 30_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    await pages.stop();
  });

  it.each([
    ['native loading=lazy', '/lazy/native'],
    ['vanilla-lazyload (cancels an image leaving the viewport)', '/lazy/vanilla'],
    ['lozad', '/lazy/lozad'],
    ['lazysizes', '/lazy/lazysizes'],
  ])('shows all 8 lazy images of a 9,000 px page: %s', async (_, path) => {
    const result = await capturer.capture(request(path, { fullPage: true }));

    expect(lazyImagesShown(readPng(result.data))).toBe(LAZY_COLOURS.length);
  });

  it('is bounded: lazy images that never arrive hold each step 2 s and the walk 8 s, and the capture is still taken', async () => {
    const started = Date.now();
    const result = await capturer.capture(request('/lazy/hanging', { fullPage: true }));
    const elapsed = Date.now() - started;

    expect(result.height).toBeGreaterThan(9_000);
    // The stability wait after load past its 3 s cap while the first images (near the top, started after load)
    // are younger than LATE_REQUEST_MAX_AGE_MS, the walk's 8 s, the stability wait again, as long at most; the
    // rest is loading and rendering a 9,000 px page.
    expect(elapsed).toBeGreaterThanOrEqual(LAZY_SCROLL_BUDGET_MS);
    expect(elapsed).toBeLessThan(LATE_REQUEST_MAX_AGE_MS + LAZY_SCROLL_BUDGET_MS + LATE_REQUEST_MAX_AGE_MS + 5_000);
    expect(result.settle!.capped).toBe(true);
  });

  it('walks a PDF too: each of the 8 images vanilla-lazyload would cancel is served whole before printing', async () => {
    pages.served.length = 0;
    const result = await capturer.capture(
      request('/lazy/vanilla', {
        output: { format: 'pdf', quality: null, omitBackground: false, pdf: { paper: 'a4', landscape: false, printBackground: true } },
      }),
    );

    expect(result.data.subarray(0, 5).toString()).toBe('%PDF-');
    expect(new Set(pages.served)).toEqual(new Set(LAZY_COLOURS.map((_, i) => `/img/${i}.png`)));
  });
});

describe('canvas and requestAnimationFrame animations (real Chromium, real chart.js)', () => {
  let pages: HardPagesServer;
  let capturer: PuppeteerPageCapturer;

  beforeAll(async () => {
    pages = await startHardPages();
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 30_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    await pages.stop();
  });

  it("waits for a chart.js chart's entry animation after a fetch: its tallest bar at full height", async () => {
    const result = await capturer.capture(captureRequest(`${pages.url}/chart`));

    // The y axis goes to 100 and the tallest bar is 100: its top is at the top of the plot (measured 52 px at
    // 1280×700 with the default padding); a third of the way up is below 400.
    const top = chartBarTop(readPng(result.data));
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(120);
    expect(result.settle!.capped).toBe(false);
  });

  it('does not let an endless requestAnimationFrame loop hold the capture past the cap', async () => {
    const started = Date.now();
    const result = await capturer.capture(captureRequest(`${pages.url}/endless-frames`));

    expect(readPng(result.data).at(640, 400)).toEqual([0, 128, 0]);
    // The cap of the waits after load is 3 s; a chain is taken for endless once it is 1.5 s old (RAF_CHAIN_MAX_MS).
    expect(result.settle!.ms).toBeLessThan(3_000);
    expect(Date.now() - started).toBeLessThan(3_000 + 2_000);
  });
});

describe('device presets and consent dialogs (real Chromium)', () => {
  let pages: HardPagesServer;
  let capturer: PuppeteerPageCapturer;

  beforeAll(async () => {
    pages = await startHardPages();
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 30_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    await pages.stop();
  });

  it('iPhone 13 full page of a page without a viewport meta: the 980 px layout at the zoom the phone shows it, whole', async () => {
    const iPhone = renderingFor({ device: 'iPhone 13' }, { viewportWidth: 1280, viewportHeight: 800, deviceScaleFactor: 1 });
    const result = await capturer.capture(captureRequest(`${pages.url}/desktop-only`, { fullPage: true, ...iPhone }));

    const picture = readPng(result.data);
    // 390 CSS px × 3 wide; the 3,000 px page at 390/980 × 3 is 3,582 px tall (it was 390 layout px wide and cut).
    expect(picture.width).toBe(1170);
    expect(Math.abs(picture.height - Math.round((3000 * 390 * 3) / 980))).toBeLessThanOrEqual(3);
    expect(HARD_PAGES.find((p) => p.path === '/desktop-only')!.check(picture)).toEqual({ complete: true, detail: expect.any(String) });
  });

  it('block_cookie_banners: a consent dialog whose Reject does nothing is hidden, with its backdrop', async () => {
    const result = await capturer.capture(captureRequest(`${pages.url}/consent`, { blockCookieBanners: true }));

    const picture = readPng(result.data);
    // The dialog (bottom 500 px) and its backdrop are rgb(20,20,20); the page behind is white.
    expect(picture.at(640, 700)).toEqual([255, 255, 255]);
    expect(picture.at(640, 100)).toEqual([255, 255, 255]);
  });

  it('block_cookie_banners: when Reject closes the dialog, the page keeps its sticky header with a Privacy link', async () => {
    const result = await capturer.capture(captureRequest(`${pages.url}/consent-works`, { blockCookieBanners: true }));

    const picture = readPng(result.data);
    expect(picture.at(640, 700)).toEqual([255, 255, 255]);
    expect(picture.at(640, 40)).toEqual([0, 0, 200]);
  });

  it('without block_cookie_banners the dialog stays (nothing is hidden unasked)', async () => {
    const result = await capturer.capture(captureRequest(`${pages.url}/consent`));

    expect(readPng(result.data).at(640, 700)).toEqual([20, 20, 20]);
  });

  it('a desktop full page keeps the viewport width', async () => {
    const result = await capturer.capture(captureRequest(`${pages.url}/desktop-only`, { fullPage: true, viewportWidth: 1280 }));

    expect([result.width, result.height]).toEqual([1280, 3000]);
  });
});
