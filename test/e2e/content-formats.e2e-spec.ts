import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { binary } from '../support/assertions';
import { BLOG_PAGE } from '../support/blog-page';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The content formats through the API (API.md fourth round, Outputs; docs/outputs.md): Take Screenshot and /render
 * with format html, markdown, text and metadata, real Chromium on a realistic blog page served on 127.0.0.1. The
 * screenshot is the content (its mime_type, download Content-Type and file name), with a thumbnail of the page as
 * seen, deleted with it; options that apply to images only are 422s. Business plan, clock pinned (rate limit).
 */
describe('Content formats through the API (real Chromium)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let siteId: number;
  let minute = Date.parse('2034-10-01T08:00:00Z');
  const api = () => request(t.url);

  async function capture(body: Record<string, unknown>) {
    const take = await api().post(`/websites/${siteId}/screenshot`).set(account.auth).send(body);
    expect(take.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, take.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    return (await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200)).body.data;
  }
  const download = (id: number) => api().get(`/screenshots/${id}/download`).set(account.auth).buffer(true).parse(binary);

  beforeAll(async () => {
    t = await startTestApp();
    pages = await new PageServer({ '/blog/sizing-connection-pools': BLOG_PAGE }).start();
    account = await t.createAccount({ plan: 'business' });
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'blog', url: `${pages.url}/blog/sizing-connection-pools` });
    expect(res.status).toBe(201);
    siteId = res.body.data.id;
  });
  afterAll(async () => {
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  it('markdown: stored as .md, text/markdown, the article without the chrome; a thumbnail; deleted with the screenshot', async () => {
    const shot = await capture({ format: 'markdown' });
    expect(shot).toMatchObject({ format: 'markdown', mime_type: 'text/markdown; charset=utf-8', width: 1280, height: 800 });
    expect(shot.file_path).toBe(`screenshots/${account.id}/${siteId}/${shot.id}.md`);
    const file = await download(shot.id).expect(200);
    expect(file.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="blog-${shot.id}.md"`);
    const md = (file.body as Buffer).toString('utf8');
    expect(md).toMatch(/^# Sizing connection pools\n/);
    expect(md).toContain('| 10 | 1450 | 38 ms |');
    expect(md).toContain('```ts\nconst pool = new Pool({');
    expect(md).not.toContain('SPONSORED');
    expect(md).not.toContain('troll42');
    expect(Number(file.headers['content-length'])).toBe(shot.file_size);
    const thumb = await api().get(`/screenshots/${shot.id}/thumbnail`).set(account.auth).buffer(true).parse(binary);
    expect(thumb.status).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');
    const stored = join(t.config.storageDir, shot.file_path.replace(/^screenshots\//, ''));
    expect(existsSync(stored)).toBe(true);
    await api().delete(`/screenshots/${shot.id}`).set(account.auth).expect(200);
    expect(existsSync(stored)).toBe(false);
    await download(shot.id).expect(404);
  });

  it('html, text and metadata: each its file, type and extension', async () => {
    const html = await capture({ format: 'html' });
    expect(html).toMatchObject({ format: 'html', mime_type: 'text/html; charset=utf-8' });
    expect(html.file_path.endsWith('.html')).toBe(true);
    const page = ((await download(html.id).expect(200)).body as Buffer).toString('utf8');
    expect(page).toContain('Update: written by a script after load');

    const text = await capture({ format: 'text' });
    expect(text).toMatchObject({ format: 'text', mime_type: 'text/plain; charset=utf-8' });
    expect(text.file_path.endsWith('.txt')).toBe(true);
    expect(((await download(text.id).expect(200)).body as Buffer).toString('utf8')).toContain('Connection pools are the quiet workhorses');

    const meta = await capture({ format: 'metadata' });
    expect(meta).toMatchObject({ format: 'metadata', mime_type: 'application/json' });
    expect(meta.file_path.endsWith('.json')).toBe(true);
    const read = JSON.parse(((await download(meta.id).expect(200)).body as Buffer).toString('utf8'));
    expect(read).toMatchObject({
      title: 'Sizing connection pools | Example Engineering Blog',
      lang: 'en-GB',
      open_graph: { title: 'Sizing connection pools', type: 'article' },
      twitter: { card: 'summary_large_image' },
      json_ld: [expect.objectContaining({ '@type': 'BlogPosting' })],
    });
  });

  it('/render: format=markdown answers the markdown; image-only options are 422 naming the field', async () => {
    const res = await api()
      .get('/render')
      .query({ url: `${pages.url}/blog/sizing-connection-pools`, format: 'markdown' })
      .set(account.auth)
      .buffer(true)
      .parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect((res.body as Buffer).toString('utf8')).toContain('## The measurements');

    for (const [body, field] of [
      [{ format: 'markdown', selector: 'article' }, 'selector'],
      [{ format: 'text', output_width: 400 }, 'output_width'],
      [{ format: 'html', quality: 50 }, 'quality'],
      [{ format: 'metadata', pdf_margin: '1in' }, 'pdf_margin'],
      [{ format: 'markdown', omit_background: true }, 'omit_background'],
    ] as const) {
      const bad = await api().post(`/websites/${siteId}/screenshot`).set(account.auth).send(body);
      expect({ field, status: bad.status, fields: (bad.body.details ?? []).map((d: { field: string }) => d.field) }).toEqual({
        field,
        status: 422,
        fields: [field],
      });
    }
  });
  it('/render?response_type=json&formats=png,markdown,metadata: one page visit, the png linked, the content inlined; cached like renders', async () => {
    const jobsBefore = (await t.app.get(JobRepository).list(account.id, { page: 1, perPage: 1 }, { type: 'render' })).total;
    const query = { url: `${pages.url}/blog/sizing-connection-pools`, response_type: 'json', formats: 'png,markdown,metadata', cache_ttl: '600' };
    const res = await api().get('/render').query(query).set(account.auth);
    expect(res.status).toBe(200);
    expect(res.headers['x-cache']).toBe('MISS');
    expect(res.body.data).toMatchObject({ mime_type: 'image/png', width: 1280, height: 800 });
    expect(res.body.data.contents.markdown).toContain('| 10 | 1450 | 38 ms |');
    expect(res.body.data.contents.markdown).not.toContain('SPONSORED');
    expect(res.body.data.contents.metadata).toMatchObject({ title: 'Sizing connection pools | Example Engineering Blog', twitter: { site: '@exampleeng' } });
    expect(Object.keys(res.body.data.contents).sort()).toEqual(['markdown', 'metadata']);
    // One visit: one render job for the three outputs.
    expect((await t.app.get(JobRepository).list(account.id, { page: 1, perPage: 1 }, { type: 'render' })).total).toBe(jobsBefore + 1);
    const file = await request(res.body.data.url).get('').buffer(true).parse(binary);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');

    const again = await api().get('/render').query(query).set(account.auth);
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.body.data.contents).toEqual(res.body.data.contents);
    // Other formats are another entry, not this one's.
    const other = await api()
      .get('/render')
      .query({ ...query, formats: 'png,text' })
      .set(account.auth);
    expect(other.headers['x-cache']).toBe('MISS');
    expect(Object.keys(other.body.data.contents)).toEqual(['text']);
    // Only content formats: the first is the file.
    const contentOnly = await api()
      .get('/render')
      .query({ ...query, formats: 'metadata,markdown' })
      .set(account.auth);
    expect(contentOnly.body.data.mime_type).toBe('application/json');
    expect(Object.keys(contentOnly.body.data.contents)).toEqual(['markdown']);
  });

  it('formats: refused as 422 naming it without response_type=json, beside format, with two files or an unknown name', async () => {
    const url = `${pages.url}/blog/sizing-connection-pools`;
    for (const query of [
      { url, formats: 'png,markdown' },
      { url, response_type: 'json', format: 'png', formats: 'png,markdown' },
      { url, response_type: 'json', formats: 'png,pdf' },
      { url, response_type: 'json', formats: 'png,docx' },
      { url, response_type: 'json', formats: 'markdown,markdown' },
    ]) {
      const res = await api().get('/render').query(query).set(account.auth);
      expect({ query, status: res.status, fields: (res.body.details ?? []).map((d: { field: string }) => d.field) }).toEqual({
        query,
        status: 422,
        fields: ['formats'],
      });
    }
  });
});
