/**
 * Integration spec: the capture report (API.md "Capture report"), fail_on_status, timeout_ms, the cap's
 * extension for late requests and tall pages captured whole in tiles — real headless Chromium against pages this
 * spec serves on loopback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

import { CaptureFailure, type CaptureRequest, type CaptureResult } from '../../modules/screenshots/application/capture.port';
import { captureRequest } from '../../../test/support/capture-request';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(90_000);

const GREEN = [0, 128, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

/** A page `height` px tall: white, with a 200 px blue band at the very bottom. */
function tallPage(height: number): string {
  return `<!doctype html><html><head><title>Tall ${height}</title><style>html,body{margin:0;background:rgb(255,255,255)}</style></head>
<body><div style="height:${height - 200}px"></div><div style="height:200px;background:rgb(0,0,255)"></div></body></html>`;
}

/** Requests to /forever are never answered (kept to end them at the close). */
const hanging: ServerResponse[] = [];

const PAGES: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/tall-20000': (_req, res) => html(res, tallPage(20_000)),
  '/tall-40000': (_req, res) => html(res, tallPage(40_000)),
  '/missing': (_req, res) => html(res, '<!doctype html><title>Not here</title><h1>404</h1>', 404),
  '/broken': (_req, res) => html(res, '<!doctype html><title>Oops</title><h1>500</h1>', 500),
  '/moved': (_req, res) => {
    res.writeHead(302, { location: '/green?from=moved' });
    res.end();
  },
  '/green': (_req, res) => html(res, '<!doctype html><title>Green page</title><style>html,body{margin:0;background:rgb(0,128,0)}</style>'),
  // After load, a request that is never answered (its query string must not be reported).
  '/never-ends': (_req, res) =>
    html(res, `<!doctype html><title>Waiting</title><script>addEventListener('load', () => setTimeout(() => fetch('/forever?token=secret'), 0));</script>`),
  '/forever': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('.');
    hanging.push(res);
  },
  // A chain after load: 1 s, then a 2.5 s request, then the page turns green — past the 3 s cap.
  '/chain': (_req, res) =>
    html(
      res,
      `<!doctype html><style>html,body{margin:0;background:rgb(255,255,255)}</style><script>
        addEventListener('load', async () => {
          await fetch('/slow?ms=1000');
          await fetch('/slow?ms=2500');
          document.documentElement.style.background = 'rgb(0,128,0)';
        });</script>`,
    ),
  '/slow': (req, res) => {
    const ms = Number(new URL(req.url ?? '', 'http://x').searchParams.get('ms'));
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    }, ms);
  },
  // The document answers and draws, then never ends (its body stays open).
  '/hang': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!doctype html><title>Half</title><style>html,body{margin:0;background:rgb(0,128,0)}</style><p>loading for ever');
    hanging.push(res);
  },
  // The server takes the request and never answers a byte.
  '/silent': (_req, res) => {
    hanging.push(res);
  },
};

function html(res: ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

async function pixel(result: CaptureResult, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(result.data).raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * info.channels;
  return [data[offset], data[offset + 1], data[offset + 2]];
}

describe('capture report (real Chromium)', () => {
  let server: Server;
  let base: string;
  let capturer: PuppeteerPageCapturer;

  function request(path: string, overrides: Partial<CaptureRequest> = {}): CaptureRequest {
    return captureRequest(`${base}${path}`, overrides);
  }

  async function failure(req: CaptureRequest): Promise<CaptureFailure> {
    const error: unknown = await capturer.capture(req).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CaptureFailure);
    return error as CaptureFailure;
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      const page = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
      if (page) page(req, res);
      else html(res, 'not found', 404);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 30_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reports status, final URL, title, height and a settled page on a plain capture', async () => {
    const result = await capturer.capture(request('/moved'));

    expect(result.report).toEqual({
      httpStatus: 200,
      finalUrl: `${base}/green?from=moved`,
      title: 'Green page',
      pageHeight: 800,
      truncated: false,
      settled: true,
      waitedMs: expect.any(Number) as number,
      pending: [],
      warnings: [],
      proxy: null,
    });
    expect(result.report!.waitedMs).toBeGreaterThanOrEqual(0);
    expect(result.report!.waitedMs).toBeLessThan(3_000);
  });

  it('captures a 20,000 px page whole (beyond the texture limit, in tiles): the blue band at the bottom is there', async () => {
    const result = await capturer.capture(request('/tall-20000', { fullPage: true }));

    expect([result.width, result.height]).toEqual([1280, 20_000]);
    expect(await pixel(result, 640, 19_900)).toEqual(BLUE);
    expect(await pixel(result, 640, 19_799)).toEqual(WHITE);
    // Around the tiles' seam (16,384): the page's white, no gap.
    expect(await pixel(result, 640, 16_383)).toEqual(WHITE);
    expect(await pixel(result, 640, 16_384)).toEqual(WHITE);
    expect(result.report).toMatchObject({ pageHeight: 20_000, truncated: false, title: 'Tall 20000' });
  });

  it('stitches tiles at device scale factor 2 (tiles of 8,192 CSS px)', async () => {
    const result = await capturer.capture(request('/tall-20000', { fullPage: true, deviceScaleFactor: 2 }));

    // 1280 × 2 wide: the memory bound (100 M pixels) allows 19,531 CSS px at this scale.
    expect([result.width, result.height]).toEqual([2560, 2 * 19_531]);
    expect(await pixel(result, 1280, 2 * 19_531 - 1)).toEqual(WHITE);
    expect(result.report).toMatchObject({ pageHeight: 20_000, truncated: true });
  });

  it('cuts a 40,000 px page at the maximum height (32,768) and says so', async () => {
    const result = await capturer.capture(request('/tall-40000', { fullPage: true }));

    expect([result.width, result.height]).toEqual([1280, 32_768]);
    expect(await pixel(result, 640, 32_767)).toEqual(WHITE);
    expect(result.report).toMatchObject({ pageHeight: 40_000, truncated: true });
  });

  it('a viewport capture of a tall page is not truncated but reports the page height', async () => {
    const result = await capturer.capture(request('/tall-40000'));

    expect([result.width, result.height]).toEqual([1280, 800]);
    expect(result.report).toMatchObject({ pageHeight: 40_000, truncated: false });
  });

  it('captures a 404 page and reports http_status 404', async () => {
    const result = await capturer.capture(request('/missing'));

    expect(result.report).toMatchObject({ httpStatus: 404, title: 'Not here', finalUrl: `${base}/missing` });
  });

  it('fail_on_status: true fails a 404 or 500 as the page’s fault; a list fails only its codes', async () => {
    const notFound = await failure(request('/missing', { failOnStatus: true }));
    expect([notFound.kind, notFound.message]).toEqual(['page', 'The page answered HTTP 404']);
    const serverError = await failure(request('/broken', { failOnStatus: [500, 503] }));
    expect([serverError.kind, serverError.message]).toEqual(['page', 'The page answered HTTP 500']);

    const listed = await capturer.capture(request('/missing', { failOnStatus: [500] }));
    expect(listed.report?.httpStatus).toBe(404);
    // A redirect is not the answer: its destination's status is.
    const redirected = await capturer.capture(request('/moved', { failOnStatus: true }));
    expect(redirected.report?.httpStatus).toBe(200);
  });

  it('a request that never ends: captured at the cap with settled=false, pending naming it without its query string', async () => {
    const started = Date.now();
    const result = await capturer.capture(request('/never-ends'));

    expect(result.report).toMatchObject({ settled: false, pending: [`127.0.0.1:${new URL(base).port}/forever`], title: 'Waiting' });
    // The cap (3 s), extended while the late request was younger than 5 s: then it is taken anyway.
    expect(result.report!.waitedMs).toBeGreaterThanOrEqual(4_900);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('waits past the 3 s cap for a chain of requests started after load (1 s, then 2.5 s)', async () => {
    const result = await capturer.capture(request('/chain'));

    expect(await pixel(result, 640, 400)).toEqual(GREEN);
    expect(result.report).toMatchObject({ settled: true, pending: [] });
    expect(result.report!.waitedMs).toBeGreaterThanOrEqual(3_400);
  });

  it('timeout_ms bounds the capture below the server’s budget: a page that never answers fails in words', async () => {
    const started = Date.now();
    const error = await failure(request('/silent', { timeoutMs: 1_500 }));

    expect([error.kind, error.message]).toEqual(['page', 'The page did not answer within 1.5 s']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a document that answered but never ends is captured as drawn, within its time limit, and flagged', async () => {
    const result = await capturer.capture(request('/hang', { timeoutMs: 3_000 }));

    expect(await pixel(result, 640, 400)).toEqual(GREEN);
    expect(result.report).toMatchObject({ settled: false, title: 'Half', pending: [`127.0.0.1:${new URL(base).port}/hang`] });
    expect(result.report!.warnings.map((w) => w.code)).toEqual(['hung_requests']);
  });
});
