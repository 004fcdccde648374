import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { ServerResponse } from 'node:http';
import request from 'supertest';
import { waitForJob } from '../support/jobs';
import { liveDescendants } from '../support/process-tree';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestApp } from '../support/test-app';

const TIMEOUT_MS = 5000;

const html = (body: string) => (_req: unknown, res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);

/** Pages that fight back: each must end within the capture timeout and leave the browser healthy. */
const HOSTILE: Record<string, (req: unknown, res: ServerResponse) => void> = {
  '/dialogs': html(`<body style="background:rgb(0,0,255)"><script>alert(1); confirm('sure?'); prompt('name?');</script>`),
  '/beforeunload': html(`<body style="background:rgb(0,0,255)"><script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; });</script>`),
  '/popup': html(`<body style="background:rgb(0,0,255)"><script>for (let i = 0; i < 20; i++) window.open('/popup-target-' + i);</script>`),
  '/download': (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="evil.bin"' }).end(Buffer.alloc(1024 * 1024, 1)),
  '/auto-download': html(`<body style="background:rgb(0,0,255)"><a id="a" href="/download" download>x</a><script>document.getElementById('a').click()</script>`),
  '/busy-loop': html(`<script>while (true) {}</script>`),
  '/never-loads': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!doctype html><body>still loading');
  },
  '/memory-hog': html(`<script>const hog = []; for (;;) hog.push(new Array(1e7).fill(Math.random()));</script>`),
  '/tall-100k': html(`<body style="margin:0;background:rgb(0,128,0)"><div style="height:100000px"></div>`),
  '/normal': html(solidPage('rgb(255,0,0)')),
};

/** Chromium processes this test process started (other processes on the machine do not count). */
function chromiumProcessCount(): number {
  return liveDescendants().length;
}

describe('hostile pages (capture hardening)', () => {
  let t: TestApp;
  let pages: PageServer;
  let auth: Record<string, string>;
  const downloadDirsBefore = new Set(readdirSync('/tmp'));

  beforeAll(async () => {
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: String(TIMEOUT_MS), CAPTURE_BROWSERS: '1', CAPTURE_CONCURRENCY: '2' } });
    pages = await new PageServer(HOSTILE).start();
    const account = await t.createAccount({ plan: 'business' });
    const { AccountsService } = await import('../../src/modules/accounts/application/accounts.service');
    await t.app.get(AccountsService).updateAccount(account.email, { limitPerMinute: 10_000, limitPerHour: 100_000 });
    auth = account.auth;
  });
  afterAll(async () => {
    await t.close();
    await pages.stop();
  });

  async function capture(path: string, fullPage = false) {
    const website = await request(t.url).post('/websites').set(auth).send({ name: path, url: `${pages.url}${path}`, full_page: fullPage }).expect(201);
    const started = Date.now();
    const { body } = await request(t.url).post(`/websites/${website.body.data.id}/screenshot`).set(auth).expect(200);
    const job = await waitForJob(t.url, auth, body.job_id, 60_000);
    return { job, elapsed: Date.now() - started };
  }

  it.each(Object.keys(HOSTILE).filter((p) => p !== '/normal' && p !== '/download'))(
    '%s ends within its timeout and a normal capture right after succeeds',
    async (path) => {
      const { job, elapsed } = await capture(path, path === '/tall-100k');
      expect(['succeeded', 'failed']).toContain(job.status);
      if (job.status === 'failed') expect(job.error).toEqual(expect.any(String));
      // The budget is per capture; allow the job's own bookkeeping and one retry-free pass on top.
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 8000);
      const normal = await capture('/normal');
      expect(normal.job.status).toBe('succeeded');
    },
  );

  it('dialogs are dismissed and the page is captured', async () => {
    expect((await capture('/dialogs')).job.status).toBe('succeeded');
  });

  it('a 100,000 px page obeys the height cap', async () => {
    const { job } = await capture('/tall-100k', true);
    const shot = await request(t.url).get(`/screenshots/${job.screenshot_id}`).set(auth).expect(200);
    expect([shot.body.data.width, shot.body.data.height]).toEqual([1280, 16384]);
  });

  it('a page stuck in a script loop fails with a readable timeout and the browser keeps working', async () => {
    const { job } = await capture('/busy-loop');
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/timeout|did not finish/i);
  });

  it('downloads are denied: nothing is written to disk', async () => {
    await capture('/auto-download');
    const created = readdirSync('/tmp').filter((f) => !downloadDirsBefore.has(f));
    for (const dir of created) {
      let listing: string[] = [];
      try {
        listing = execFileSync('find', [`/tmp/${dir}`, '-name', 'evil.bin*'], { encoding: 'utf8' }).split('\n').filter(Boolean);
      } catch {
        /* vanished */
      }
      expect(listing).toEqual([]);
    }
    expect(execFileSync('find', [t.config.dataDir, '-name', 'evil.bin*'], { encoding: 'utf8' }).trim()).toBe('');
  });

  it('no Chromium process outlives the service', async () => {
    const other = await startTestApp({ env: { CAPTURE_BROWSERS: '1' } });
    const before = chromiumProcessCount();
    const account = await other.createAccount();
    const website = await request(other.url).post('/websites').set(account.auth).send({ name: 'n', url: `${pages.url}/normal` }).expect(201);
    const { body } = await request(other.url).post(`/websites/${website.body.data.id}/screenshot`).set(account.auth).expect(200);
    expect((await waitForJob(other.url, account.auth, body.job_id)).status).toBe('succeeded');
    expect(chromiumProcessCount()).toBeGreaterThan(before);
    await other.close();
    // Give the kernel a moment to reap what the pool killed.
    const deadline = Date.now() + 5000;
    while (chromiumProcessCount() > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(chromiumProcessCount()).toBeLessThanOrEqual(before);
  });
});
