/**
 * Integration spec (real Chromium): a selector that never appears fails once the page has been still for a while,
 * not after the capture's whole time limit; an element that comes while the page still works is waited for.
 */
import { CaptureFailure } from '../../modules/screenshots/application/capture.port';
import { captureRequest } from '../../../test/support/capture-request';
import { PageServer } from '../../../test/support/page-server';
import { SELECTOR_GIVE_UP_STILL_MS } from './capture-run';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(60_000);

const TIME_LIMIT_MS = 30_000;

const pages = new PageServer({
  '/plain': '<!doctype html><h1>Hello</h1>',
  // A request that answers after 5 s, longer than the give-up window, then the element: a busy page is waited for.
  '/slow-data': `<!doctype html><h1>Loading</h1><script>
    setTimeout(() => fetch('/data').then((r) => r.text()).then((t) => document.body.insertAdjacentHTML('beforeend', '<p id="late">' + t + '</p>')), 200);
  </script>`,
  '/data': (_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('arrived'), 5_000);
  },
});

describe('a selector that never appears (real Chromium)', () => {
  let capturer: PuppeteerPageCapturer;

  beforeAll(async () => {
    await pages.start();
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: TIME_LIMIT_MS, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    await pages.stop();
  });

  it.each([
    ['wait_for_selector', { waitForSelector: '#never' }],
    ['selector', { selector: '.missing' }],
  ] as const)('%s: fails in words soon after the page is still, far within the 30 s limit', async (option, overrides) => {
    const started = Date.now();
    const error = await capturer.capture(captureRequest(`${pages.url}/plain`, overrides)).then(
      () => new Error('expected a failure'),
      (e: unknown) => e,
    );
    const tookMs = Date.now() - started;

    expect(error).toBeInstanceOf(CaptureFailure);
    const selector = option === 'selector' ? '.missing' : '#never';
    expect({ kind: (error as CaptureFailure).kind, message: (error as CaptureFailure).message }).toEqual({
      kind: 'page',
      message: `No element matches ${option} "${selector}": the page finished loading and stayed still for ${SELECTOR_GIVE_UP_STILL_MS / 1000} s without one`,
    });
    // The still window and a margin for a loaded machine, nowhere near the time limit.
    expect(tookMs).toBeGreaterThanOrEqual(SELECTOR_GIVE_UP_STILL_MS);
    expect(tookMs).toBeLessThan(SELECTOR_GIVE_UP_STILL_MS + 10_000);
  });

  it('waits for an element that comes after the give-up window while a request is still in flight', async () => {
    const result = await capturer.capture(captureRequest(`${pages.url}/slow-data`, { waitForSelector: '#late' }));

    expect(result.report?.settled).toBe(true);
  });
});
