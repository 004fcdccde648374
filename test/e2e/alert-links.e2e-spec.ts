import { once } from 'node:events';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { AlertLinks } from '../../src/modules/notifications/application/alert-links';
import { signRenderQuery } from '../../src/modules/render-keys/domain/render-key';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { ReceivedMail, SmtpTestServer } from '../support/smtp-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Alert links (issue 46) end to end: a real change found by real captures in Chromium is announced by e-mail through
 * a real SMTP server (the message parsed: its picture is an inline part the HTML names by Content-ID), by a Teams
 * Adaptive Card and by an ntfy message to real local HTTP receivers; every image, diff and compare link opens with
 * no session, within the link's account only, and stops opening when it expires (the app's clock) or is altered.
 * The URL policy is ON: the receivers are reached only because their origins are in URL_ALLOWLIST (which also
 * stands in for the Teams hosts; the production host rule is the unit spec's).
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

class Receiver {
  readonly received: Received[] = [];
  url = '';
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      this.received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end('{}');
    });
  });

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async at(path: string, timeoutMs = 45_000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.received.find((r) => r.path === path);
      if (got) return got;
      if (Date.now() > deadline) throw new Error(`no message reached ${path} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const PUBLIC_URL = 'https://shots.example.com';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The path and query of a link made for PUBLIC_URL: what is signed, to be asked of this test's server. */
function local(link: string): string {
  expect(link.startsWith(`${PUBLIC_URL}/links?`)).toBe(true);
  return link.slice(PUBLIC_URL.length);
}

function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
}

/** Supertest, reading any body as bytes (images) or text. */
function binary(res: request.Response, callback: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

describe('Alert links: signed, expiring, opened without a session; the e-mail picture inline; Teams and ntfy', () => {
  let receiver: Receiver;
  let smtp: SmtpTestServer;
  let pages: PageServer;
  let color = 'rgb(0,128,0)';
  let t: TestApp;
  let account: TestAccount;
  let mail: ReceivedMail;
  let changedId: number;
  const api = () => request(t.url);

  async function website(who: TestAccount, name: string, url: string): Promise<number> {
    const res = await api().post('/websites').set(who.auth).send({ name, url });
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  }

  async function capture(who: TestAccount, websiteId: number) {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(who.auth).send({});
    expect(take.status).toBe(200);
    return waitForJob(t.url, who.auth, take.body.job_id);
  }

  async function channel(who: TestAccount, body: Record<string, unknown>): Promise<{ id: number; target: string }> {
    const res = await api().post('/notification-channels').set(who.auth).send(body);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    return res.body.data as { id: number; target: string };
  }

  async function mailTo(address: string, timeoutMs = 45_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = smtp.received.find((m) => m.to.includes(address));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no e-mail reached ${address} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    receiver = await new Receiver().start();
    smtp = await new SmtpTestServer().start();
    pages = await new PageServer({
      '/changing': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage(color)),
      '/still': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage('rgb(10,20,30)')),
    }).start();
    t = await startTestApp({
      env: {
        ALLOW_PRIVATE_NETWORKS: 'false',
        URL_ALLOWLIST: [receiver.url, pages.url].join(','),
        WEBHOOK_POLL_MS: '100',
        WEBHOOK_RETRY_DELAYS: '1,1,1',
        SMTP_URL: smtp.url,
        PUBLIC_URL,
      },
    });
    account = await t.createAccount({ plan: 'business' });

    // One change, announced on three channels at once.
    const site = await website(account, 'Landing page', `${pages.url}/changing`);
    await channel(account, { name: 'Mail', type: 'email', target: 'alerts@example.com', events: ['screenshot.changed'] });
    const teams = await channel(account, {
      name: 'Teams',
      type: 'teams',
      target: `${receiver.url}/workflows/teams-hook?sig=secret`,
      events: ['screenshot.changed'],
    });
    expect(teams.target).toBe(`${receiver.url}/********`);
    await channel(account, { name: 'Phone', type: 'ntfy', target: `${receiver.url}/landing-alerts`, events: ['screenshot.changed'] });
    color = 'rgb(0,128,0)';
    expect(await capture(account, site)).toMatchObject({ status: 'succeeded' });
    color = 'rgb(200,0,0)';
    const second = await capture(account, site);
    expect(second).toMatchObject({ status: 'succeeded' });
    changedId = second.screenshot_id as number;
    mail = await mailTo('alerts@example.com');
  });

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
    await smtp?.stop();
    await receiver?.stop();
  });

  it('the e-mail carries the picture as an inline part the HTML names by its Content-ID; a click opens the signed image link', async () => {
    expect(mail.subject).toBe('Landing page changed');
    const inline = mail.attachments.filter((a) => a.contentId !== null);
    expect(inline).toHaveLength(1);
    expect({ ...inline[0], base64: inline[0].base64.length > 0 }).toMatchObject({ contentType: 'image/png', disposition: 'inline', related: true });
    expect(Buffer.from(inline[0].base64, 'base64').subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(mail.html).toContain(`<img src="cid:${inline[0].contentId}"`);
    // The picture's click target, and the Image link: the signed link to the full image.
    const image = hrefs(mail.html).find((h) => h.includes('view=image'))!;
    expect(image).toMatch(
      new RegExp(`^${PUBLIC_URL}/links\\?screenshot=${changedId}&view=image&access_key=rk_[0-9a-f]{24}&expires=\\d+&signature=[0-9a-f]{64}$`),
    );
    expect(mail.html).toContain(`<a href="${image.replace(/&/g, '&amp;')}"><img src="cid:`);
    expect(mail.text).toContain(`Image: ${image}`);
    // Valid 30 days from the event by default.
    const expires = Number(new URL(image).searchParams.get('expires'));
    expect(expires * 1000 - Date.now()).toBeGreaterThan(29.9 * 86_400_000);
    expect(expires * 1000 - Date.now()).toBeLessThan(30.1 * 86_400_000);
  });

  it('the image, diff and compare links open with no session: the PNG itself, the diff PNG, a read-only page whose pictures open too', async () => {
    const links = hrefs(mail.html);
    const image = await api()
      .get(local(links.find((h) => h.includes('view=image'))!))
      .buffer(true)
      .parse(binary);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect((image.body as Buffer).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    const download = await api().get(`/screenshots/${changedId}/download`).set(account.auth).buffer(true).parse(binary);
    expect(Buffer.compare(image.body as Buffer, download.body as Buffer)).toBe(0);

    const diff = await api()
      .get(local(links.find((h) => h.includes('view=diff'))!))
      .buffer(true)
      .parse(binary);
    expect(diff.status).toBe(200);
    expect(diff.headers['content-type']).toBe('image/png');
    expect((diff.body as Buffer).subarray(0, 8)).toEqual(PNG_SIGNATURE);

    const compare = await api().get(local(links.find((h) => h.includes('view=compare'))!));
    expect(compare.status).toBe(200);
    expect(compare.headers['content-type']).toMatch(/^text\/html/);
    expect(compare.headers['x-robots-tag']).toBe('noindex, nofollow');
    const page = compare.text;
    expect(page).toContain(`Capture ${changedId} of Landing page`);
    expect(page).toContain('A read-only view from an alert');
    expect(page).toContain('<span id="change-ratio">100.00%</span>');
    expect(page).not.toContain('Sign out'); // no dashboard navigation, no session
    const pictures = [...page.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    expect(pictures).toHaveLength(3); // before, after, diff
    for (const src of pictures) {
      expect(src).toMatch(/^\/links\?screenshot=\d+&view=(image|diff)&access_key=/);
      const got = await api().get(src).buffer(true).parse(binary);
      expect({ src, status: got.status, type: got.headers['content-type'] }).toEqual({ src, status: 200, type: 'image/png' });
    }
  });

  it('Teams gets an Adaptive Card and ntfy a text with Title, Click and Tags, each with the signed links', async () => {
    const teams = await receiver.at('/workflows/teams-hook?sig=secret');
    expect(teams.headers['content-type']).toBe('application/json');
    const card = JSON.parse(teams.body) as {
      type: string;
      attachments: Array<{ contentType: string; content: { type: string; body: Array<{ text?: string }>; actions: Array<{ title: string; url: string }> } }>;
    };
    expect(card.type).toBe('message');
    expect(card.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.attachments[0].content.type).toBe('AdaptiveCard');
    expect(card.attachments[0].content.body[0].text).toBe('Landing page changed');
    expect(card.attachments[0].content.body.map((b) => b.text)).toContain('Pixels changed: 100.00 %');
    const compare = card.attachments[0].content.actions.find((a) => a.title === 'Compare')!;
    expect(compare.url).toMatch(new RegExp(`^${PUBLIC_URL}/links\\?screenshot=${changedId}&view=compare&`));
    expect((await api().get(local(compare.url))).status).toBe(200);

    const ntfy = await receiver.at('/landing-alerts');
    expect(ntfy.headers).toMatchObject({ title: 'Landing page changed', tags: 'mag', 'content-type': 'text/plain; charset=utf-8' });
    expect(ntfy.headers.click).toBe(compare.url); // one message per event: the same signed links on every channel
    expect(ntfy.body).toContain('Pixels changed: 100.00 %');
    expect(
      (
        await api()
          .get(local(ntfy.headers.attach as string))
          .buffer(true)
          .parse(binary)
      ).headers['content-type'],
    ).toBe('image/png');
  });

  it('an altered link is 403 with words; a link of another account never opens this one’s screenshot; a render key cannot sign one, nor the system key /render', async () => {
    const image = local(hrefs(mail.html).find((h) => h.includes('view=image'))!);
    const altered = [
      image.replace(`screenshot=${changedId}`, `screenshot=${changedId - 1}`),
      image.replace('view=image', 'view=compare'),
      image.replace(/&signature=[0-9a-f]+$/, ''),
      image.replace(/expires=(\d+)/, (_m, s: string) => `expires=${Number(s) + 86_400}`),
    ];
    for (const path of altered) {
      const res = await api().get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toMatch(/signature/i);
      expect(res.text).not.toContain('PNG');
    }
    // Another account's correctly signed link naming this account's screenshot: read within its own account → 404.
    const other = await t.createAccount({ plan: 'business' });
    const theirs = await t.app.get(AlertLinks).linkFor(other.id, changedId, 'image', t.clock.now());
    const res = await api().get(local(theirs));
    expect(res.status).toBe(404);
    expect(res.text).not.toMatch(/Landing page/);

    // The account's own render key signing the very same query is not its system key: refused.
    const key = await api().post('/render-keys').set(account.auth).send({ name: 'mine' });
    const query = image
      .slice('/links?'.length)
      .replace(/access_key=rk_[0-9a-f]+/, `access_key=${key.body.data.access_key}`)
      .replace(/&signature=.*/, '');
    expect((await api().get(`/links?${signRenderQuery(query, key.body.data.secret as string)}`)).status).toBe(403);
    // The system key is never a render key: a /render link it names is refused.
    const systemKey = /access_key=(rk_[0-9a-f]+)/.exec(image)![1];
    const render = await api().get(`/render?url=${encodeURIComponent(`${pages.url}/still`)}&access_key=${systemKey}&signature=${'0'.repeat(64)}`);
    expect({ status: render.status, code: render.body.code }).toEqual({ status: 403, code: 'invalid_signature' });
    // …nor listed among the account's render keys.
    const keys = await api().get('/render-keys').set(account.auth).expect(200);
    expect(keys.body.data.map((k: { access_key: string }) => k.access_key)).toEqual([key.body.data.access_key]);
  });

  it('the test message shows the newest capture: its Job link opens that job, its picture is inline; without a capture, no Job link', async () => {
    const c = await channel(account, { name: 'Test mail', type: 'email', target: 'test-message@example.com', events: ['screenshot.failed'] });
    await api().post(`/notification-channels/${c.id}/test`).set(account.auth).expect(202);
    const test = await mailTo('test-message@example.com');
    const shot = await api().get(`/screenshots/${changedId}`).set(account.auth).expect(200);
    const jobs = await api().get('/jobs').set(account.auth).expect(200);
    const job = (jobs.body.data as Array<{ id: string; screenshot_id: number | null }>).find((j) => j.screenshot_id === changedId)!;
    expect(test.text).toContain(`Job: ${PUBLIC_URL}/dashboard/jobs/${job.id}`);
    expect(test.text).toContain(`Example: the newest capture of Landing page, taken ${shot.body.data.taken_at.replace('.000Z', 'Z')}`);
    expect(test.attachments.filter((a) => a.contentId)).toHaveLength(1);

    const fresh = await t.createAccount({ plan: 'business' });
    const empty = await channel(fresh, { name: 'Empty', type: 'email', target: 'no-captures@example.com', events: ['screenshot.failed'] });
    await api().post(`/notification-channels/${empty.id}/test`).set(fresh.auth).expect(202);
    const none = await mailTo('no-captures@example.com');
    expect(none.text).not.toContain('Job:');
    expect(none.text).toContain(`Alerts settings: ${PUBLIC_URL}/dashboard/notifications`);
    expect(none.text).toContain('No capture yet');
    expect(none.attachments).toHaveLength(0);
  });

  it('Teams and ntfy targets are checked like Slack and Discord: another host or a bad topic is 422 naming target', async () => {
    const bad = [
      { type: 'teams', target: 'https://evil.example/workflows/1' },
      { type: 'teams', target: 'https://prod-1.westus.logic.azure.com/workflows/../x' },
      { type: 'ntfy', target: 'https://ntfy.sh/' },
      { type: 'ntfy', target: 'https://169.254.169.254/topic' },
    ];
    for (const b of bad) {
      const res = await api()
        .post('/notification-channels')
        .set(account.auth)
        .send({ name: 'x', events: ['screenshot.failed'], ...b });
      expect({ ...b, status: res.status, field: res.body.details?.[0]?.field }).toEqual({ ...b, status: 422, field: 'target' });
    }
  });

  it('a link opens until its expiry (30 days from the event) and is 403 link_expired after it, with words', async () => {
    const image = local(hrefs(mail.html).find((h) => h.includes('view=image'))!);
    const expires = Number(new URL(`http://x${image}`).searchParams.get('expires')) * 1000;
    t.clock.set(new Date(expires - 1000));
    expect((await api().get(image)).status).toBe(200);
    t.clock.set(new Date(expires));
    const res = await api().get(image);
    expect(res.status).toBe(403);
    expect(res.text).toContain(`The link expired at ${new Date(expires).toISOString()}`);
  });
});
