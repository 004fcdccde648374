import request from 'supertest';
import { ScreenshotStorage } from '../../src/modules/screenshots/application/ports';
import { ScreenshotsService } from '../../src/modules/screenshots/application/screenshots.service';
import { ChangedTextLines } from '../../src/modules/notifications/application/ports';
import { EventPayloads } from '../../src/modules/webhooks/application/ports';
import { textDiffKey, textKey } from '../../src/modules/screenshots/domain/screenshot';
import { waitForComparison } from '../support/changes';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Text changes and like for like (API.md "Text changes", docs/text-changes.md): each image capture keeps the page's
 * visible text; `changed` is pixels over the threshold OR a text change; a capture is compared only with the
 * previous one taken with the same options that change the picture. Real Chromium renders pages served on
 * 127.0.0.1; everything is read back through the API. Runs on both stacks.
 */

const NOT_FOUND = { success: false, error: expect.any(String), code: 'not_found' };

/** A landing page: the headline is a few letters in a 1280×800 picture of mostly other content. */
function landing(headline: string, extra = ''): string {
  return (
    '<!doctype html><html><head><style>html,body{margin:0;background:#fff;font:16px sans-serif}' +
    'header{height:120px;background:#123}main{padding:24px}h1{font-size:18px;margin:0 0 12px}' +
    '.hero{height:400px;background:linear-gradient(#eef,#ccf)}.ad{position:absolute;right:0;top:0;width:300px;height:250px;background:#f80}</style></head>' +
    `<body><header></header><main><h1>${headline}</h1><p>Build, test and deploy in one place.</p>` +
    `<div class="hero"></div><p>Pricing</p><p>Docs &amp; guides</p>${extra}</main></body></html>`
  );
}

interface ChangeBody {
  previous_id: number;
  status?: 'pending';
  changed_ratio?: number;
  changed?: boolean;
  compared_at?: string;
  text_changed?: boolean;
  text_diff?: { added: number; removed: number } | null;
}

describe('Text changes and like for like (API.md: Text changes)', () => {
  let t: TestApp;
  let other: TestAccount;
  let site: PageServer;
  /** What /headline shows on its next request. */
  let headline = 'Ship faster, v1';
  let clock = 0;

  beforeAll(async () => {
    site = await new PageServer({
      '/headline': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(landing(headline)),
      // The ignored element's text changes on every visit; the rest never does.
      '/ticker': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(landing('Status', `<p id="ticker">Visits: ${++clock}</p>`)),
      // Thousands of lines that all change: a text diff of a few hundred kB.
      '/long': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(landing(headline, Array.from({ length: 4000 }, (_, i) => `<p>${headline} row ${i}</p>`).join(''))),
      '/markup': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(landing(headline.replace(/</g, '&lt;'))),
    }).start();
    t = await startTestApp({ env: { SCHEDULE_TICK_MS: '3600000' } });
    other = await t.createAccount({ plan: 'business' });
  });

  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });

  let minute = Date.parse('2026-12-01T08:00:00Z');
  const freshMinute = () => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  };

  async function website(account: TestAccount, path: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await request(t.url)
      .post('/websites')
      .set(account.auth)
      .send({ name: `Site ${path}`, url: `${site.url}${path}`, ...extra });
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  }

  async function capture(account: TestAccount, websiteId: number, body: Record<string, unknown> = {}): Promise<number> {
    const res = await request(t.url).post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(res.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, res.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded' });
    return job.screenshot_id as number;
  }

  async function change(account: TestAccount, id: number): Promise<ChangeBody | null> {
    await waitForComparison(t.app, id);
    const res = await request(t.url).get(`/screenshots/${id}`).set(account.auth);
    expect(res.status).toBe(200);
    return res.body.data.change as ChangeBody | null;
  }

  const text = (account: TestAccount, id: number, what: 'text' | 'text-diff') => request(t.url).get(`/screenshots/${id}/${what}`).set(account.auth);

  it('"Ship faster, v1" → "v2": far under the pixel threshold, yet changed, with text_diff {added: 1, removed: 1}; the text and the unified diff are served as text/plain', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    headline = 'Ship faster, v1';
    const id = await website(account, '/headline');
    const first = await capture(account, id);
    headline = 'Ship faster, v2';
    const second = await capture(account, id);
    const result = await change(account, second);
    expect(result).toMatchObject({ previous_id: first, changed: true, text_changed: true, text_diff: { added: 1, removed: 1 } });
    // The pixels alone would say "no change": the edit is a few glyphs of a 1280×800 picture.
    expect(result!.changed_ratio).toBeGreaterThan(0);
    expect(result!.changed_ratio).toBeLessThan(0.001);

    const kept = await text(account, second, 'text');
    expect({ status: kept.status, type: kept.headers['content-type'] }).toEqual({ status: 200, type: 'text/plain; charset=utf-8' });
    expect(kept.text).toBe('Ship faster, v2\nBuild, test and deploy in one place.\nPricing\nDocs & guides\n');

    const diff = await text(account, second, 'text-diff');
    expect({ status: diff.status, type: diff.headers['content-type'] }).toEqual({ status: 200, type: 'text/plain; charset=utf-8' });
    expect(diff.text).toContain(`--- screenshot ${first}\n+++ screenshot ${second}\n`);
    expect(diff.text).toContain('-Ship faster, v1\n+Ship faster, v2\n Build, test and deploy in one place.\n');
    // The screenshot.changed webhook's data (as the dispatcher builds it) carries the text fields too.
    const payload = await t.app.get(EventPayloads).forChange({ screenshotId: second, accountId: account.id, websiteId: id, comparedAt: new Date() });
    expect(payload).toMatchObject({
      screenshot_id: second,
      previous_id: first,
      text_changed: true,
      text_diff: { added: 1, removed: 1 },
      screenshot: { id: second, change: { changed: true, text_changed: true, text_diff: { added: 1, removed: 1 } } },
    });

    // Conditional GET like the other stored files.
    const again = await text(account, second, 'text-diff').set('If-None-Match', diff.headers.etag);
    expect(again.status).toBe(304);

    // The change is listed, and a capture of the same text is not a change (0 lines either way).
    const changes = await request(t.url).get(`/websites/${id}/changes`).set(account.auth);
    expect(changes.body.data.map((s: { id: number }) => s.id)).toEqual([second]);
    const third = await capture(account, id);
    expect(await change(account, third)).toMatchObject({ previous_id: second, changed: false, text_changed: false, text_diff: { added: 0, removed: 0 } });
    const unchangedDiff = await text(account, third, 'text-diff');
    expect(unchangedDiff.status).toBe(200);
    expect(unchangedDiff.text).not.toContain('@@');

    // No comparison, no text diff; the first capture still has its text.
    expect((await text(account, first, 'text-diff')).status).toBe(404);
    expect((await text(account, first, 'text')).text).toContain('Ship faster, v1\n');
  });

  it("a message's first changed lines come from the head of a diff larger than 64 KiB, through the notifications' port; another account's id is refused", async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    headline = 'Ship faster, v1';
    const id = await website(account, '/long');
    await capture(account, id);
    headline = 'Ship faster, v2';
    const second = await capture(account, id);
    expect(await change(account, second)).toMatchObject({ text_changed: true, text_diff: { added: 4001, removed: 4001 } });
    const whole = await text(account, second, 'text-diff');
    expect(Buffer.byteLength(whole.text)).toBeGreaterThan(128 * 1024);
    const lines = await t.app.get(ChangedTextLines).firstLines(account.id, second, 5);
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe('- Ship faster, v1'); // jsdiff lists a hunk's removed lines before its added ones
    expect(lines.every((l) => /^- \S/.test(l))).toBe(true);
    // Only the head is parsed: asking for every line yields those in the first 64 KiB, far fewer than the 8002.
    const many = await t.app.get(ScreenshotsService).firstChangedTextLines(account.id, second, 100_000);
    expect(many.length).toBeGreaterThan(1000);
    expect(many.length).toBeLessThan(4000);
    expect(many.every((l) => /^[-+] (Ship faster, v[12]( row \d+)?|Build, test and deploy in one place\.|Pricing|Docs & guides)$/.test(l))).toBe(true);
    // A diff not stored (yet) is made as GET /text-diff makes it, and the same lines come out.
    const storage = t.app.get(ScreenshotStorage);
    await storage.delete(textDiffKey((await t.app.get(ScreenshotsService).get(account.id, second)).filePath));
    expect(await t.app.get(ChangedTextLines).firstLines(account.id, second, 5)).toEqual(lines);
    await expect(t.app.get(ChangedTextLines).firstLines(other.id, second, 5)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('text inside change_ignore_selectors is not kept, so its changes are no change; the same page without the selector is a text change', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    const ignoring = await website(account, '/ticker', { change_ignore_selectors: ['#ticker'] });
    const watching = await website(account, '/ticker');
    const results: Record<string, unknown> = {};
    for (const [name, id] of [
      ['ignoring', ignoring],
      ['watching', watching],
    ] as const) {
      await capture(account, id);
      const second = await capture(account, id);
      const c = await change(account, second);
      results[name] = { changed: c?.changed, text_changed: c?.text_changed, text_diff: c?.text_diff };
      if (name === 'ignoring') expect((await text(account, second, 'text')).text).not.toContain('Visits');
    }
    expect(results).toEqual({
      ignoring: { changed: false, text_changed: false, text_diff: { added: 0, removed: 0 } },
      watching: { changed: true, text_changed: true, text_diff: { added: 1, removed: 1 } },
    });
  });

  it('like for like: a one-off capture with hide_selectors starts its own history (change null) and the plain series goes on past it', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    headline = 'Same headline';
    const id = await website(account, '/headline');
    const plain = await capture(account, id);
    const hidden = await capture(account, id, { hide_selectors: ['h1'] });
    const darkCss = await capture(account, id, { css: 'body{background:#000}' });
    const plainAgain = await capture(account, id);
    expect(await change(account, hidden)).toBeNull();
    expect(await change(account, darkCss)).toBeNull();
    expect(await change(account, plainAgain)).toMatchObject({ previous_id: plain, changed: false, text_changed: false });
    // The same one-off options again are compared with the first capture that had them.
    const hiddenAgain = await capture(account, id, { hide_selectors: ['h1'] });
    expect(await change(account, hiddenAgain)).toMatchObject({ previous_id: hidden, changed: false });
    // hide_selectors hides with visibility: hidden, and hidden text is not visible text.
    expect((await text(account, hidden, 'text')).text).not.toContain('Same headline');
  });

  it('a PDF keeps no text; another account’s text and text diff are 404; deleting a screenshot removes its text and text diff', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    headline = 'Before <b>';
    const id = await website(account, '/markup');
    const pdf = await capture(account, id, { format: 'pdf' });
    expect((await text(account, pdf, 'text')).body).toEqual(NOT_FOUND);
    const first = await capture(account, id);
    headline = 'After <b>';
    const second = await capture(account, id);
    expect(await change(account, second)).toMatchObject({ text_changed: true });
    for (const path of [`/screenshots/${second}/text`, `/screenshots/${second}/text-diff`, '/screenshots/999999999/text']) {
      const res = await request(t.url).get(path).set(other.auth);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: NOT_FOUND });
    }
    // Markup in the page's text is text: kept as the page showed it.
    expect((await text(account, second, 'text')).text).toContain('After <b>\n');

    const storage = t.app.get(ScreenshotStorage);
    const shot = await request(t.url).get(`/screenshots/${second}`).set(account.auth);
    const file = shot.body.data.file_path as string;
    expect([await storage.exists(textKey(file)), await storage.exists(textDiffKey(file))]).toEqual([true, true]);
    expect((await request(t.url).delete(`/screenshots/${second}`).set(account.auth)).status).toBe(200);
    expect([await storage.exists(textKey(file)), await storage.exists(textDiffKey(file))]).toEqual([false, false]);
    expect((await text(account, second, 'text')).status).toBe(404);
    // The previous capture deleted: the next compares with the newest one left, its text included.
    const third = await capture(account, id);
    expect(await change(account, third)).toMatchObject({ previous_id: first, text_changed: true, text_diff: { added: 1, removed: 1 } });
  });
});
