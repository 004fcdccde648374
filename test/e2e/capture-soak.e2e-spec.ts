import { captureRequest } from '../support/capture-request';
import { PuppeteerPageCapturer } from '../../src/adapters/capture/puppeteer-page-capturer';
import { PageServer, solidPage } from '../support/page-server';
import { liveDescendants } from '../support/process-tree';

/**
 * 200 captures through one pool: no Chromium process accumulates and memory does not creep. The browser
 * is recycled every 80 captures on the way, so recycling is part of what is measured.
 */
describe('capture soak: 200 captures', () => {
  let pages: PageServer;
  let capturer: PuppeteerPageCapturer;

  beforeAll(async () => {
    pages = await new PageServer({
      '/page': `<!doctype html><body style="font-family:sans-serif"><h1>Soak</h1>${'<p>Lorem ipsum dolor sit amet.</p>'.repeat(50)}<img src="/img.svg"></body>`,
      '/img.svg': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'image/svg+xml' })
          .end('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><rect width="200" height="200" fill="teal"/></svg>'),
      '/red': solidPage('rgb(255,0,0)'),
    }).start();
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 4, recycleAfter: 80, allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await capturer.close();
    await pages.stop();
  });

  async function captureMany(n: number): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < n) {
          next += 1;
          const result = await capturer.capture(captureRequest(`${pages.url}/page`));
          expect(result.width).toBe(1280);
        }
      }),
    );
  }

  async function settled(): Promise<{ count: number; rss: number }> {
    // Closed contexts' renderers exit asynchronously; give them a moment.
    await new Promise((r) => setTimeout(r, 1500));
    const procs = liveDescendants();
    return { count: procs.length, rss: procs.reduce((sum, p) => sum + p.rssBytes, 0) };
  }

  it('keeps the Chromium process count at its baseline and RSS within 20%', async () => {
    await captureMany(20);
    const after20 = await settled();
    await captureMany(180);
    const after200 = await settled();
    expect(after200.count).toBeLessThanOrEqual(after20.count);
    expect(after200.rss).toBeLessThanOrEqual(after20.rss * 1.2);
    // And the pool still works.
    expect((await capturer.capture(captureRequest(`${pages.url}/red`))).height).toBe(800);
  }, 240_000);

  it('close() leaves no Chromium process behind', async () => {
    await capturer.close();
    const deadline = Date.now() + 5000;
    while (liveDescendants().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(liveDescendants()).toEqual([]);
  });
});
