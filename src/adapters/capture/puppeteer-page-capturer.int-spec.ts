/**
 * Integration spec: real headless Chromium capturing pages from a local HTTP server.
 */
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

import { CaptureFailure, type CaptureRequest, type CaptureResult } from '../../modules/screenshots/application/capture.port';
import { captureRequest } from '../../../test/support/capture-request';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(60_000);

const RED = [255, 0, 0];
const GREEN = [0, 128, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];
const BLACK = [0, 0, 0];

function solidPage(colour: string, extra = ''): string {
  return `<!doctype html><html><head><style>html,body{margin:0;background:${colour}}</style></head>
<body>${extra}</body></html>`;
}

/** Counts /hang pages that got as far as running a script. */
let pagesRendering = 0;

/** Requests the server takes and never answers (ended when it closes). */
const silent: ServerResponse[] = [];

const PAGES: Record<string, (res: ServerResponse) => void> = {
  '/red': (res) => html(res, solidPage('rgb(255,0,0)')),
  '/tall': (res) => html(res, solidPage('rgb(0,128,0)', '<div style="height:3000px"></div>')),
  '/huge': (res) => html(res, solidPage('rgb(0,128,0)', '<div style="height:100000px"></div>')),
  // Headers and half a document, then nothing: 'load' never fires. The script tells the test that a
  // renderer is running the page.
  '/hang': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!doctype html><html><body><p>loading for ever<script>fetch("/rendering")</script>');
  },
  '/rendering': (res) => {
    pagesRendering++;
    res.writeHead(204);
    res.end();
  },
  // Taken, never answered: kept to be ended with the server.
  '/silent': (res) => {
    silent.push(res);
  },
  '/busy-loop': (res) => html(res, '<!doctype html><script>for (;;) {}</script>'),
  '/alert': (res) => html(res, solidPage('rgb(0,0,255)', '<script>alert("hello"); confirm("sure?");</script>')),
  '/dark-aware': (res) =>
    html(
      res,
      `<!doctype html><style>html,body{margin:0;background:rgb(255,255,255)}
       @media (prefers-color-scheme: dark){html,body{background:rgb(0,0,0)}}</style>`,
    ),
  '/banner': (res) =>
    html(res, solidPage('rgb(255,0,0)', '<div class="banner" style="position:fixed;top:0;left:0;right:0;height:200px;background:rgb(0,0,255)"></div>')),
  '/late-element': (res) =>
    html(
      res,
      solidPage(
        'rgb(255,255,255)',
        // Later than the wait after load, so only waitForSelector can explain a green capture: an
        // interval (which the stability wait does not wait for, unlike a short timeout) counts to 1.5 s.
        `<script>const since = Date.now(); const tick = setInterval(() => {
           if (Date.now() - since < 1500) return;
           clearInterval(tick);
           document.documentElement.style.background = 'rgb(0,128,0)';
           document.body.insertAdjacentHTML('beforeend', '<p id="late">here</p>');
         }, 50);</script>`,
      ),
    ),
  // A lazily loaded image 2,500 px down: only a capture that scrolls makes Chromium fetch it.
  '/lazy': (res) =>
    html(
      res,
      solidPage('rgb(255,255,255)', '<div style="height:2500px"></div><img loading="lazy" src="/blue.png" width="400" height="300" style="display:block">'),
    ),
  '/blue.png': (res) => {
    const png = new PNG({ width: 4, height: 4 });
    for (let i = 0; i < png.data.length; i += 4) png.data.set([0, 0, 255, 255], i);
    // Slow enough that a capture which does not wait for it would miss it.
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(PNG.sync.write(png));
    }, 300);
  },
  '/not-found': (res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end(solidPage('rgb(0,0,255)', '<h1>Not found</h1>'));
  },
  '/form': (res) =>
    html(
      res,
      `<!doctype html><html><head><style>html,body{margin:0;background:rgb(255,255,255)}
       #result{height:50px}</style></head><body>
       <input id="name"><select id="colour"><option value="red">Red</option><option value="blue">Blue</option></select>
       <button id="go" onclick="apply()">Go</button>
       <div id="hover-target" onmouseover="this.dataset.hovered = 'yes'">hover me</div>
       <div style="height:3000px"></div><p id="far">far away</p>
       <script>
         function apply() {
           if (document.querySelector('#name').value !== 'Ada') return;
           const colour = document.querySelector('#colour').value;
           document.body.style.background = colour === 'blue' ? 'rgb(0,0,255)' : 'rgb(255,0,0)';
           document.body.insertAdjacentHTML('beforeend', '<p id="done">done</p>');
         }
         document.addEventListener('keydown', (e) => { if (e.key === 'Enter') document.title = 'entered'; });
       </script></body></html>`,
    ),
  // Every input event, and the fields' values, mirrored into the URL's fragment (what a scenario tab can read).
  '/fields': (res) =>
    html(
      res,
      `<!doctype html><html><body>
       <input id="field" value="old"><textarea id="notes">old notes</textarea><div id="editor" contenteditable="true">old text</div>
       <input id="later" disabled><input id="never" disabled>
       <script>
         const log = [];
         const el = (id) => document.getElementById(id);
         const report = () => history.replaceState(null, '', '#' + encodeURIComponent(JSON.stringify({
           log, field: el('field').value, notes: el('notes').value, editor: el('editor').textContent, later: el('later').value })));
         for (const id of ['field', 'notes', 'editor', 'later']) {
           el(id).addEventListener('input', (e) => { log.push(id + ':' + e.isTrusted + ':' + e.inputType); report(); });
         }
         setTimeout(() => el('later').removeAttribute('disabled'), 300);
       </script></body></html>`,
    ),
};

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

function startServer(): Promise<Server> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const page = PAGES[req.url ?? ''];
    if (page) page(res);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A port that nothing listens on: bind one, then free it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function pixel(result: CaptureResult, x: number, y: number): number[] {
  const png = PNG.sync.read(result.data);
  const offset = (y * png.width + x) * 4;
  return [png.data[offset], png.data[offset + 1], png.data[offset + 2]];
}

/**
 * Live processes whose process group is one of ours (each browser leads its own group). Zombies are
 * left out: they are already dead and only wait for init, their parent once the browser is gone, to reap them.
 */
function processesInGroups(groups: number[]): string[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => {
    const [, pgid, stat] = line.trim().split(/\s+/);
    return groups.includes(Number(pgid)) && !stat.startsWith('Z');
  });
}

function rendererPids(browserPid: number): number[] {
  return processesInGroups([browserPid])
    .filter((line) => line.includes('--type=renderer'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/**
 * The Chromium browser process itself. Debian's /usr/bin/chromium-headless-shell is a shell wrapper
 * that does not exec, so the process puppeteer spawned (the group leader) may be /bin/sh.
 */
function browserMainPid(groupPid: number): number {
  const main = processesInGroups([groupPid]).find((line) => {
    const [, , , command] = line.trim().split(/\s+/);
    return !line.includes('--type=') && !/\bsh$/.test(command);
  });
  if (!main) throw new Error(`no Chromium browser process in group ${groupPid}`);
  return Number(main.trim().split(/\s+/)[0]);
}

function userDataDirs(browserPid: number): string[] {
  return processesInGroups([browserPid]).flatMap((line) => /--user-data-dir=(\S+)/.exec(line)?.[1] ?? []);
}

async function expectFailure(promise: Promise<unknown>, kind: CaptureFailure['kind'], message: string | RegExp): Promise<CaptureFailure> {
  const error: unknown = await promise.then(
    () => new Error('expected the capture to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CaptureFailure);
  const failure = error as CaptureFailure;
  expect({ kind: failure.kind, message: failure.message }).toEqual({
    kind,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });
  return failure;
}

describe('PuppeteerPageCapturer (real Chromium)', () => {
  let server: Server;
  let base: string;
  let capturer: PuppeteerPageCapturer;

  function request(path: string, overrides: Partial<CaptureRequest> = {}): CaptureRequest {
    return captureRequest(`${base}${path}`, overrides);
  }

  beforeAll(async () => {
    server = await startServer();
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The fixture server is on loopback, which the URL policy refuses by default.
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 4, timeoutMs: 3_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  describe('capture', () => {
    it('captures exactly the viewport with the page colours', async () => {
      const result = await capturer.capture(request('/red'));

      expect([result.width, result.height]).toEqual([1280, 800]);
      expect(Buffer.isBuffer(result.data)).toBe(true);
      expect(pixel(result, 640, 400)).toEqual(RED);
      expect(pixel(result, 1279, 799)).toEqual(RED);
    });

    it('captures the whole height of a tall page when fullPage is set', async () => {
      const full = await capturer.capture(request('/tall', { fullPage: true }));
      const viewport = await capturer.capture(request('/tall'));

      expect([full.width, full.height]).toEqual([1280, 3000]);
      expect(pixel(full, 10, 2999)).toEqual(GREEN);
      expect([viewport.width, viewport.height]).toEqual([1280, 800]);
    });

    it('scrolls a full-page capture once so lazy-loaded images are in the picture', async () => {
      const full = await capturer.capture(request('/lazy', { fullPage: true }));

      expect([full.width, full.height]).toEqual([1280, 2800]);
      expect(pixel(full, 100, 2650)).toEqual(BLUE);
    });

    it('cuts an endless page at maxFullPageHeight', async () => {
      // 32,768 px in two tiles and a stitch take longer than this suite's 3 s budget on a loaded machine.
      const patient = new PuppeteerPageCapturer({ browsers: 1, concurrency: 1, timeoutMs: 30_000, allowPrivateNetworks: true });
      const result = await patient.capture(request('/huge', { fullPage: true })).finally(() => patient.close());

      expect([result.width, result.height]).toEqual([1280, 32_768]);
      expect(pixel(result, 10, 32_767)).toEqual(GREEN);
      expect(result.report).toMatchObject({ pageHeight: 100_000, truncated: true });
    });

    it('renders at deviceScaleFactor 2 with twice the pixels', async () => {
      const viewport = await capturer.capture(request('/red', { deviceScaleFactor: 2 }));
      const full = await capturer.capture(request('/tall', { deviceScaleFactor: 2, fullPage: true }));

      expect([viewport.width, viewport.height]).toEqual([2560, 1600]);
      expect(pixel(viewport, 2559, 1599)).toEqual(RED);
      expect([full.width, full.height]).toEqual([2560, 6000]);
    });

    it('emulates prefers-color-scheme: dark only when asked', async () => {
      const dark = await capturer.capture(request('/dark-aware', { darkMode: true }));
      const light = await capturer.capture(request('/dark-aware'));

      expect(pixel(dark, 100, 100)).toEqual(BLACK);
      expect(pixel(light, 100, 100)).toEqual(WHITE);
    });

    it('dismisses alert() and confirm() dialogs and still captures', async () => {
      const result = await capturer.capture(request('/alert'));

      expect(pixel(result, 100, 100)).toEqual(BLUE);
    });

    it('hides elements matching hideSelectors', async () => {
      const shown = await capturer.capture(request('/banner'));
      const hidden = await capturer.capture(request('/banner', { hideSelectors: ['.banner', '#absent'] }));

      expect(pixel(shown, 100, 100)).toEqual(BLUE);
      expect(pixel(hidden, 100, 100)).toEqual(RED);
    });

    it('rejects an invalid hide selector as a page failure', async () => {
      await expectFailure(capturer.capture(request('/banner', { hideSelectors: ['div[['] })), 'page', 'Invalid CSS selector: div[[');
    });

    it('waits for waitForSelector before capturing', async () => {
      const waited = await capturer.capture(request('/late-element', { waitForSelector: '#late' }));
      const unwaited = await capturer.capture(request('/late-element'));

      expect(pixel(waited, 100, 100)).toEqual(GREEN);
      expect(pixel(unwaited, 100, 100)).toEqual(WHITE);
    });

    it('fails as the page when the selector never appears', async () => {
      await expectFailure(capturer.capture(request('/red', { waitForSelector: '#never' })), 'page', 'Timed out after 3000 ms waiting for selector "#never"');
    });

    it('rejects an invalid waitForSelector at once instead of waiting out the timeout', async () => {
      const started = Date.now();
      await expectFailure(capturer.capture(request('/red', { waitForSelector: 'a[[' })), 'page', 'Invalid CSS selector: a[[');

      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('refuses a request Chromium cannot honour as a page failure, not an infrastructure one', async () => {
      await expectFailure(
        capturer.capture(request('/red', { viewportWidth: 0, deviceScaleFactor: 6 })),
        'page',
        'Invalid capture request: viewportWidth must be an integer from 1 to 16384; deviceScaleFactor must be from 1 to 5 (the API allows 1..3; device presets go up to 4.5)',
      );
    });

    const withAgent = (userAgent: string) => ({ emulation: { mobile: false, touch: false, locale: null, timezone: null, userAgent } });
    it('a stored value Chromium refuses (CR/LF user agent, control character in a header) fails once as the page, named, before the browser sees it', async () => {
      const failure = await expectFailure(
        capturer.capture(request('/red', withAgent('Agent\r\nX-Injected: 1'))),
        'page',
        /^The user agent has characters a browser refuses \(control characters/,
      );
      expect(failure.message).not.toMatch(/crash/i);
      await expectFailure(
        capturer.capture(request('/red', { secrets: { headers: { 'X-Key': 'a\u0001b' } } })),
        'page',
        /^The header X-Key has characters a browser refuses/,
      );
      await expectFailure(capturer.capture(request('/red', withAgent('Agent\u007f'))), 'page', /^The user agent has characters/);
      // The browser was never involved: the next capture runs as usual.
      expect(pixel(await capturer.capture(request('/red', withAgent('Agent\tfine'))), 10, 10)).toEqual(RED);
    });

    it('waits delayMs before capturing', async () => {
      const started = Date.now();
      await capturer.capture(request('/red', { delayMs: 700 }));

      expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    });

    it('captures an HTTP error page instead of failing', async () => {
      const result = await capturer.capture(request('/not-found'));

      expect(pixel(result, 100, 400)).toEqual(BLUE);
    });

    it('fails as the page on a connection refused, keeping the net:: code', async () => {
      const port = await closedPort();
      await expectFailure(capturer.capture(request('', { url: `http://127.0.0.1:${port}/` })), 'page', 'net::ERR_CONNECTION_REFUSED');
    });

    it('fails as the page when the host name does not resolve', async () => {
      await expectFailure(capturer.capture(request('', { url: 'http://no-such-host.invalid/' })), 'page', 'net::ERR_NAME_NOT_RESOLVED');
    });

    it('captures a page that answered but never finishes loading as drawn, within timeoutMs and flagged, then captures the next', async () => {
      const started = Date.now();
      const result = await capturer.capture(request('/hang'));
      const elapsed = Date.now() - started;

      expect(result.report).toMatchObject({ settled: false });
      expect(result.report!.warnings.map((w) => w.code)).toEqual(['hung_requests']);
      expect(elapsed).toBeLessThan(5_000);
      expect(pixel(await capturer.capture(request('/red')), 1, 1)).toEqual(RED);
    });

    it('fails in words on a page that never answers within timeoutMs, then captures the next', async () => {
      const started = Date.now();
      await expectFailure(capturer.capture(request('/silent')), 'page', 'The page did not answer within 3 s');
      const elapsed = Date.now() - started;

      expect(elapsed).toBeGreaterThanOrEqual(2_900);
      expect(elapsed).toBeLessThan(5_000);
      expect(pixel(await capturer.capture(request('/red')), 1, 1)).toEqual(RED);
    });

    it('gives up on a page stuck in a script loop, then captures the next', async () => {
      const started = Date.now();
      // It answered, so the navigation ends by itself; then the page cannot even be asked how it is.
      await expectFailure(capturer.capture(request('/busy-loop')), 'page', 'Page did not finish rendering within 3000 ms');

      expect(Date.now() - started).toBeLessThan(5_000);
      expect(pixel(await capturer.capture(request('/red')), 1, 1)).toEqual(RED);
    });

    it('runs concurrent captures in isolated contexts', async () => {
      const colours = await Promise.all(
        ['/red', '/not-found', '/red', '/alert', '/red', '/not-found'].map(async (path) => pixel(await capturer.capture(request(path)), 5, 700)),
      );

      expect(colours).toEqual([RED, BLUE, RED, BLUE, RED, BLUE]);
    });
  });

  describe('withPage', () => {
    it('drives a page through scenario steps and screenshots it', async () => {
      const outcome = await capturer.withPage({ viewportWidth: 800, viewportHeight: 600 }, async (page) => {
        await page.goto(`${base}/form`);
        await page.fill('#name', 'Ada');
        await page.select('#colour', 'blue');
        await page.hover('#hover-target');
        await page.click('#go');
        await page.waitForSelector('#done');
        await page.press('Enter');
        await page.scrollTo({ selector: '#far' });
        await page.scrollTo('bottom');
        const viewport = await page.screenshot({ fullPage: false });
        const full = await page.screenshot({ fullPage: true });
        return { viewport, full, url: page.url() };
      });

      expect([outcome.viewport.width, outcome.viewport.height]).toEqual([800, 600]);
      expect(pixel(outcome.viewport, 400, 300)).toEqual(BLUE);
      expect(outcome.full.width).toBe(800);
      expect(outcome.full.height).toBeGreaterThan(3_000);
      expect(outcome.url).toBe(`${base}/form`);
    });

    it('fill replaces a text field’s content in one trusted insertion (not key by key), waiting until the field is enabled', async () => {
      await capturer.withPage({ viewportWidth: 800, viewportHeight: 600 }, async (page) => {
        await page.goto(`${base}/fields`);
        await page.fill('#field', 'correct-horse-battery');
        await page.fill('#notes', 'new notes');
        await page.fill('#editor', 'typed');
        await page.fill('#later', 'late', 5_000);
        await expectFailure(page.fill('#never', 'x', 300), 'page', 'Timed out after 300 ms waiting for "#never" to be editable');
        const state: unknown = JSON.parse(decodeURIComponent(new URL(page.url()).hash.slice(1)));
        expect(state).toEqual({
          log: ['field:true:insertText', 'notes:true:insertText', 'editor:true:insertText', 'later:true:insertText'],
          field: 'correct-horse-battery',
          notes: 'new notes',
          editor: 'typed',
          later: 'late',
        });
      });
    });

    it('reports a missing option and a missing element as page failures', async () => {
      await capturer.withPage({ viewportWidth: 800, viewportHeight: 600 }, async (page) => {
        await page.goto(`${base}/form`);
        await expectFailure(page.select('#colour', 'green'), 'page', 'No option with value "green" in "#colour"');
        await expectFailure(page.waitForSelector('#nowhere', 200), 'page', /waiting for selector "#nowhere"/);
        await expectFailure(page.click('button >>> span'), 'page', 'Invalid CSS selector: button >>> span');
      });
    });

    it('closes the context when the scenario throws', async () => {
      // The previous test's result came back while its context was still closing (BrowserPool.withContext).
      for (const until = Date.now() + 5_000; capturer.stats().inFlight > 0 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 10));
      const before = capturer.stats();
      await expect(
        capturer.withPage({ viewportWidth: 800, viewportHeight: 600 }, async () => {
          throw new Error('scenario bug');
        }),
      ).rejects.toThrow('scenario bug');

      expect(capturer.stats()).toEqual({ ...before, inFlight: 0, waiting: 0 });
    });
  });
});

describe('PuppeteerPageCapturer browser lifecycle (real Chromium)', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = await startServer();
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function request(path: string): CaptureRequest {
    return captureRequest(`${base}${path}`, { viewportWidth: 640, viewportHeight: 480 });
  }

  async function waitUntil(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  it('encodes with the fast PNG encoder by default (larger file) and the compact one when fastPngEncoding is off, same pixels', async () => {
    const fast = new PuppeteerPageCapturer({ browsers: 1, concurrency: 1, timeoutMs: 10_000, allowPrivateNetworks: true });
    const compact = new PuppeteerPageCapturer({ browsers: 1, concurrency: 1, timeoutMs: 10_000, allowPrivateNetworks: true, fastPngEncoding: false });
    try {
      const [quick, small] = [await fast.capture(request('/tall')), await compact.capture(request('/tall'))];

      expect(PNG.sync.read(quick.data).data.equals(PNG.sync.read(small.data).data)).toBe(true);
      // The fast encoder compresses less: measured 2.8× the compact one's size on a flat page.
      expect(quick.data.length).toBeGreaterThan(2 * small.data.length);
    } finally {
      await Promise.all([fast.close(), compact.close()]);
    }
  });

  it('reports a killed browser as infrastructure and relaunches for the next capture', async () => {
    const capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 10_000, allowPrivateNetworks: true });
    try {
      await capturer.warmUp();
      const [firstPid] = capturer.stats().pids;
      const rendering = pagesRendering;
      const hanging = expectFailure(capturer.capture(request('/hang')), 'infrastructure', /^Browser (disconnected|process exited)/);
      await waitUntil(() => pagesRendering > rendering);

      process.kill(browserMainPid(firstPid), 'SIGKILL');
      await hanging;

      expect(pixel(await capturer.capture(request('/red')), 1, 1)).toEqual(RED);
      const [secondPid] = capturer.stats().pids;
      expect(secondPid).not.toBe(firstPid);
      await waitUntil(() => processesInGroups([firstPid]).length === 0);
    } finally {
      await capturer.close();
    }
  });

  it('reports a crashed renderer as a page failure and keeps the browser', async () => {
    const capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 10_000, allowPrivateNetworks: true });
    try {
      await capturer.warmUp();
      const [pid] = capturer.stats().pids;
      const rendering = pagesRendering;
      const hanging = expectFailure(capturer.capture(request('/hang')), 'page', 'The page crashed the browser tab (renderer process)');
      await waitUntil(() => pagesRendering > rendering);

      for (const renderer of rendererPids(pid)) process.kill(renderer, 'SIGKILL');
      await hanging;

      expect(pixel(await capturer.capture(request('/red')), 1, 1)).toEqual(RED);
      expect(capturer.stats().pids).toEqual([pid]);
    } finally {
      await capturer.close();
    }
  });

  it('does not capture in a prewarmed tab whose renderer was killed a moment before (its crash not yet reported)', async () => {
    const capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 1, timeoutMs: 10_000, allowPrivateNetworks: true, prewarm: true });
    try {
      await capturer.warmUp();
      const [pid] = capturer.stats().pids;
      // Idle, the browser has two renderers: its first blank tab's and the spare tab's.
      await waitUntil(() => rendererPids(pid).length >= 2);

      for (const renderer of rendererPids(pid)) process.kill(renderer, 'SIGKILL');
      // At once: the crash may not have been reported when the lease takes the spare (the pool probes it).
      expect(pixel(await capturer.capture(request('/red')), 1, 1)).toEqual(RED);
      expect(capturer.stats().pids).toEqual([pid]);
    } finally {
      await capturer.close();
    }
  });

  it('reports a browser that cannot be launched as infrastructure', async () => {
    const capturer = new PuppeteerPageCapturer({ chromePath: '/nonexistent/chrome', allowPrivateNetworks: true });
    try {
      await expectFailure(
        capturer.capture(request('/red')),
        'infrastructure',
        /^Could not launch Chromium: CHROME_PATH=\/nonexistent\/chrome is not an executable file/,
      );
    } finally {
      await capturer.close();
    }
  });

  it('replaces a browser after recycleAfter captures', async () => {
    const capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 1, recycleAfter: 2, allowPrivateNetworks: true });
    try {
      await capturer.capture(request('/red'));
      const [firstPid] = capturer.stats().pids;
      await capturer.capture(request('/red'));
      await waitUntil(() => processesInGroups([firstPid]).length === 0);
      await capturer.capture(request('/red'));

      expect(capturer.stats().pids).toHaveLength(1);
      expect(capturer.stats().pids[0]).not.toBe(firstPid);
    } finally {
      await capturer.close();
    }
  });

  it('cleans up after a process that exits without calling close()', async () => {
    // A separate Node process that launches a browser, reports it and exits abruptly.
    const script = `
      const { PuppeteerPageCapturer } = require(${JSON.stringify(join(__dirname, 'puppeteer-page-capturer'))});
      const capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 1, allowPrivateNetworks: true });
      capturer.warmUp().then(() => {
        const [pid] = capturer.stats().pids;
        const out = require('node:child_process').execFileSync('ps', ['-o', 'args=', '-g', String(pid)], { encoding: 'utf8' });
        console.log(JSON.stringify({ pid, profile: /--user-data-dir=(\\S+)/.exec(out)[1] }));
        process.exit(0);
      });`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), '-e', script], {
      env: { ...process.env, TS_NODE_PROJECT: join(__dirname, '../../../tsconfig.json') },
    });
    const { pid, profile } = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { pid: number; profile: string };

    expect(pid).toBeGreaterThan(0);
    expect(profile).toContain('screenshot-chromium-');
    expect(processesInGroups([pid])).toEqual([]);
    expect(existsSync(profile)).toBe(false);
  });

  it('close() leaves no Chromium process or profile directory behind, and refuses later captures', async () => {
    const capturer = new PuppeteerPageCapturer({ browsers: 2, concurrency: 4, allowPrivateNetworks: true });
    await capturer.warmUp();
    // A capture still running at close time must not keep anything alive.
    const hanging = expectFailure(capturer.capture(request('/hang')), 'infrastructure', /Browser/);
    await capturer.capture(request('/red'));
    const pids = capturer.stats().pids;
    const profiles = pids.flatMap(userDataDirs);
    expect(pids).toHaveLength(2);
    expect(profiles.length).toBeGreaterThan(0);
    expect(profiles.every((dir) => existsSync(dir))).toBe(true);

    await capturer.close();

    await hanging;
    expect(processesInGroups(pids)).toEqual([]);
    expect(profiles.filter((dir) => existsSync(dir))).toEqual([]);
    expect(capturer.stats().pids).toEqual([]);
    await expectFailure(capturer.capture(request('/red')), 'infrastructure', 'Browser pool is shut down');
  });
});
