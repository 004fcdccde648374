import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import request from 'supertest';
import { BLOG_PAGE } from '../support/blog-page';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * POST /mcp (issue 47) spoken by the SDK's own client (Client + StreamableHTTPClientTransport) against the booted
 * app: the tools' list, a real screenshot in Chromium of a page served on 127.0.0.1 (decoded with sharp), a page's
 * markdown and metadata, a monitor made by watch_page, its changes, and the refusals: no or a wrong token (the spec's
 * 401), tool errors in words (the URL policy, bad inputs, another account's website).
 */
describe('POST /mcp: the Model Context Protocol, with the SDK’s client', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let client: Client;
  let color = 'rgb(0,90,200)';

  const connect = async (token: string): Promise<Client> => {
    const c = new Client({ name: 'e2e', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return c;
  };
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const textOf = (result: CallToolResult) => result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');

  beforeAll(async () => {
    pages = await new PageServer({
      '/blog/sizing-connection-pools': BLOG_PAGE,
      '/watched': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage(color)),
    }).start();
    t = await startTestApp();
    account = await t.createAccount({ plan: 'business' });
    client = await connect(account.token);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
    await pages?.stop();
  });

  it('lists the four tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['list_changes', 'page_content', 'screenshot', 'watch_page']);
    const screenshot = tools.find((tool) => tool.name === 'screenshot')!;
    expect(screenshot.inputSchema).toMatchObject({ type: 'object', required: ['url'] });
    expect(Object.keys(screenshot.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['url', 'viewport_width', 'full_page', 'format']));
  });

  it('screenshot: a real capture, returned as an image (a PNG of the asked width) and a line of facts', async () => {
    const result = await call('screenshot', { url: `${pages.url}/watched`, viewport_width: 640, viewport_height: 400 });
    expect(result.isError).toBeFalsy();
    const image = result.content.find((c) => c.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const meta = await sharp(Buffer.from((image as { data: string }).data, 'base64')).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'png', width: 640, height: 400 });
    expect(textOf(result)).toMatch(/^Screenshot of http:\/\/127\.0\.0\.1:\d+\/watched: 640×400 PNG, HTTP 200$/);
  });

  it('tool errors come back as isError results in words: the URL policy, bad inputs, an unknown option value', async () => {
    const refused = [
      [{ url: 'ftp://example.com/file' }, /^Invalid input: url: .*http/],
      [{ url: 'http://user:secret@example.com/' }, /^Invalid input: url: .*credentials/i],
      [{ url: `${pages.url}/watched`, viewport_width: 10 }, /^Invalid input: viewport_width: /],
      [{ url: `${pages.url}/watched`, device: 'Nokia 3310' }, /^Invalid input: device: /],
    ] as const;
    for (const [args, message] of refused) {
      const result = await call('screenshot', args);
      expect({ args, isError: result.isError }).toEqual({ args, isError: true });
      expect(textOf(result)).toMatch(message);
      expect(textOf(result)).not.toMatch(/\n\s+at /); // no stack
    }
    // A page that does not load: the capture's own words.
    const dead = await call('screenshot', { url: 'http://127.0.0.1:9/' });
    expect(dead.isError).toBe(true);
    expect(textOf(dead)).not.toMatch(/\n\s+at /);
  });

  it('page_content: the article as markdown (no chrome), then its metadata as JSON', async () => {
    const result = await call('page_content', { url: `${pages.url}/blog/sizing-connection-pools` });
    expect(result.isError).toBeFalsy();
    const [markdown, metadata] = result.content.map((c) => (c.type === 'text' ? c.text : ''));
    expect(markdown).toContain('Sizing connection pools');
    expect(markdown).toContain('| 10 | 1450 | 38 ms |');
    expect(markdown).not.toContain('SPONSORED');
    expect(metadata.startsWith('Metadata (JSON): ')).toBe(true);
    expect(JSON.parse(metadata.slice('Metadata (JSON): '.length))).toMatchObject({
      title: 'Sizing connection pools | Example Engineering Blog',
      lang: 'en-GB',
    });
  });

  it('watch_page makes a monitor (website, schedule, channel, first capture); list_changes reads its changes; another account’s website is not found', async () => {
    const channel = (
      await request(t.url)
        .post('/notification-channels')
        .set(account.auth)
        .send({ name: 'Ops', type: 'slack', target: 'https://hooks.slack.com/services/T0/B0/x', events: ['screenshot.changed'], website_ids: null })
    ).body.data;
    const watched = await call('watch_page', { url: `${pages.url}/watched`, every: '1h', channel_ids: [channel.id] });
    expect(watched.isError).toBeFalsy();
    const made = watched.structuredContent as { website_id: number; schedule_id: number; every: string; channel_ids: number[]; first_job_id: string };
    expect(made).toMatchObject({ every: '1h', channel_ids: [channel.id], first_job_id: expect.any(String) });
    expect(textOf(watched)).toContain(`as website ${made.website_id}`);
    expect((await request(t.url).get(`/websites/${made.website_id}`).set(account.auth)).body.data).toMatchObject({
      name: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    });
    expect((await request(t.url).get(`/schedules/${made.schedule_id}`).set(account.auth)).body.data).toMatchObject({
      website_id: made.website_id,
      frequency: 'hourly',
    });
    expect(await waitForJob(t.url, account.auth, made.first_job_id)).toMatchObject({ status: 'succeeded' });

    const none = await call('list_changes', { website_id: made.website_id });
    expect(textOf(none)).toBe(`Website ${made.website_id} has no changes yet.`);

    color = 'rgb(220,20,20)';
    const job = (await request(t.url).post(`/websites/${made.website_id}/screenshot`).set(account.auth)).body.job_id as string;
    expect(await waitForJob(t.url, account.auth, job)).toMatchObject({ status: 'succeeded' });
    // The comparison runs right after the capture; read until it has.
    let changes = await call('list_changes', { website_id: made.website_id });
    for (let i = 0; i < 100 && (changes.structuredContent as { total: number }).total === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      changes = await call('list_changes', { website_id: made.website_id });
    }
    expect(changes.structuredContent).toMatchObject({
      website_id: made.website_id,
      total: 1,
      changes: [{ website_id: made.website_id, change: { changed: true } }],
    });
    expect(textOf(changes)).toMatch(/^1 change, newest first:\n- \S+: screenshot \d+ changed \(100\.00% of pixels, text \+0\/-0 lines\)$/);

    const bad = await call('watch_page', { url: `${pages.url}/watched`, every: '1h', channel_ids: [999_999] });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe('Invalid input: monitor.channel_ids: monitor.channel_ids must be ids of your notification channels (not found: 999999)');

    const stranger = await t.createAccount({ plan: 'business' });
    const theirs = await connect(stranger.token);
    try {
      const hidden = (await theirs.callTool({ name: 'list_changes', arguments: { website_id: made.website_id } })) as CallToolResult;
      expect({ isError: hidden.isError, text: textOf(hidden) }).toEqual({ isError: true, text: 'Website not found' });
    } finally {
      await theirs.close();
    }
  }, 120_000);

  it('no token or a wrong one: the spec’s 401, and the SDK’s client cannot connect; GET is 405; answers carry the rate-limit headers', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const accept = { Accept: 'application/json, text/event-stream' };
    for (const auth of [{}, { Authorization: 'Bearer sst_wrong' }]) {
      const res = await request(t.url).post('/mcp').set(accept).set(auth).send(initialize);
      expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { success: false, error: 'Unauthorized', code: 'unauthorized' } });
    }
    await expect(connect('sst_wrong')).rejects.toThrow(/"error":"Unauthorized"/);
    const ok = await request(t.url).post('/mcp').set(accept).set(account.auth).send(initialize);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'screenshot-service' }, capabilities: { tools: {} } } });
    expect(ok.headers['x-ratelimit-limit']).toBe('60');
    expect(Number(ok.headers['x-ratelimit-remaining'])).toBeLessThan(60);
    const get = await request(t.url).get('/mcp').set(accept).set(account.auth);
    expect({ status: get.status, allow: get.headers.allow, success: get.body.success }).toEqual({ status: 405, allow: 'POST', success: false });
  });
});
