import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { detailFields } from '../support/assertions';

/**
 * Websites resource (spec: Resources/Website, Endpoints/Websites, Pagination envelope; API.md: Websites, Lists,
 * General error codes, URL policy).
 *
 * Rate limit: every account is on Pro (20 requests per calendar minute). Each test starts in a fresh,
 * pinned minute (beforeEach → freshMinute), and the few tests that need more than 20 requests of one
 * account move to the next minute explicitly between their groups of requests.
 */

const WEBSITE_FIELDS = ['id', 'name', 'url', 'viewport_width', 'viewport_height', 'full_page', 'status'];

const NOT_FOUND = { success: false, error: expect.any(String), code: 'not_found' };

function validationBody(fields: string[]) {
  return {
    success: false,
    error: expect.any(String),
    code: 'validation_failed',
    details: expect.arrayContaining(fields.map((field) => ({ field, message: expect.any(String) }))),
  };
}

/** The set of fields named in a 422's details (each detail must be a {field, message} pair of non-empty strings). */

describe('Websites (spec: Endpoints/Websites; API.md: Websites, Lists)', () => {
  let t: TestApp;
  let minute = Date.parse('2031-03-01T08:00:00Z');

  /** Pins the shared clock to the start of a new calendar minute: every account gets a fresh 20-request window. */
  function freshMinute(): void {
    minute += 60_000;
    t.clock.set(new Date(minute));
  }

  const api = () => request(t.url);

  async function createWebsite(account: TestAccount, body: Record<string, unknown>) {
    const res = await api().post('/websites').set(account.auth).send(body);
    expect(res.status).toBe(201);
    return res.body.data as Record<string, any>;
  }

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());
  beforeEach(() => freshMinute());

  describe('Create Website', () => {
    it('201 {success: true, data} with the defaults and without last_screenshot_at', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api().post('/websites').set(account.auth).send({ name: 'Example', url: 'https://example.com/' });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ success: true, data: expect.any(Object) });
      const data = res.body.data;
      expect(Object.keys(data)).toEqual(expect.arrayContaining(WEBSITE_FIELDS));
      expect(data).toMatchObject({
        id: expect.any(Number),
        name: 'Example',
        url: 'https://example.com/',
        viewport_width: 1280,
        viewport_height: 800,
        full_page: false,
        status: 'active',
      });
      expect(Number.isInteger(data.id)).toBe(true);
      expect(data).not.toHaveProperty('last_screenshot_at');
      // Rate-limit headers ride on every authenticated response.
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      expect(res.headers['x-ratelimit-remaining']).toBe('19');
    });

    it('stores the given values and returns them', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const data = await createWebsite(account, {
        name: 'Docs',
        url: 'https://docs.example.org/path?q=1',
        viewport_width: 1920,
        viewport_height: 1080,
        full_page: true,
      });
      expect(data).toMatchObject({
        name: 'Docs',
        url: 'https://docs.example.org/path?q=1',
        viewport_width: 1920,
        viewport_height: 1080,
        full_page: true,
        status: 'active',
      });
      const got = await api().get(`/websites/${data.id}`).set(account.auth).expect(200);
      expect(got.body.data).toMatchObject({ ...data, last_screenshot_at: null });
    });

    it('accepts the inclusive bounds (viewport 320x240 and 3840x2160, name 255 chars, url 2048 chars)', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const url2048 = 'https://example.com/' + 'a'.repeat(2048 - 'https://example.com/'.length);
      expect(url2048).toHaveLength(2048);
      const small = await createWebsite(account, { name: 'n'.repeat(255), url: url2048, viewport_width: 320, viewport_height: 240 });
      expect(small).toMatchObject({ name: 'n'.repeat(255), url: url2048, viewport_width: 320, viewport_height: 240 });
      const large = await createWebsite(account, { name: 'x', url: 'http://example.com/', viewport_width: 3840, viewport_height: 2160 });
      expect(large).toMatchObject({ name: 'x', viewport_width: 3840, viewport_height: 2160 });
    });

    it.each([
      ['both name and url missing', {}, ['name', 'url']],
      ['name missing', { url: 'https://example.com/' }, ['name']],
      ['url missing', { name: 'Example' }, ['url']],
    ])('422 validation_failed naming each missing required field: %s', async (_, body, fields) => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api().post('/websites').set(account.auth).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validationBody(fields));
      expect(detailFields(res.body)).toEqual([...fields].sort());
    });

    const valid = { name: 'Example', url: 'https://example.com/' };
    it.each([
      ['viewport_width 319', { ...valid, viewport_width: 319 }, 'viewport_width'],
      ['viewport_width 3841', { ...valid, viewport_width: 3841 }, 'viewport_width'],
      ['viewport_height 239', { ...valid, viewport_height: 239 }, 'viewport_height'],
      ['viewport_height 2161', { ...valid, viewport_height: 2161 }, 'viewport_height'],
      ['viewport_width 1280.5 (not an integer)', { ...valid, viewport_width: 1280.5 }, 'viewport_width'],
      ['viewport_width "1280" (a string)', { ...valid, viewport_width: '1280' }, 'viewport_width'],
      ['viewport_height "800" (a string)', { ...valid, viewport_height: '800' }, 'viewport_height'],
      ['full_page "true" (a string)', { ...valid, full_page: 'true' }, 'full_page'],
      ['full_page 1 (a number)', { ...valid, full_page: 1 }, 'full_page'],
      ['name of 256 chars', { ...valid, name: 'n'.repeat(256) }, 'name'],
      ['empty name', { ...valid, name: '' }, 'name'],
      ['name 42 (a number)', { ...valid, name: 42 }, 'name'],
      ['url of 2049 chars', { ...valid, url: 'https://example.com/' + 'a'.repeat(2049 - 20) }, 'url'],
      ['name null', { ...valid, name: null }, 'name'],
      ['url null', { ...valid, url: null }, 'url'],
      ['viewport_width null', { ...valid, viewport_width: null }, 'viewport_width'],
      ['viewport_height null', { ...valid, viewport_height: null }, 'viewport_height'],
      ['full_page null', { ...valid, full_page: null }, 'full_page'],
      ['status "deleted" (not a status)', { ...valid, status: 'deleted' }, 'status'],
      ['an unknown field', { ...valid, colour: 'red' }, 'colour'],
    ])('422 validation_failed with details on the field for %s, and nothing is created', async (_, body, field) => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api().post('/websites').set(account.auth).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validationBody([field]));
      expect(detailFields(res.body)).toEqual([field]);
      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);
      expect(list.body.data).toEqual([]);
    });

    it.each([
      ['ftp://x'],
      ['javascript:alert(1)'],
      ['file:///etc/passwd'],
      ['data:text/html,<h1>hi</h1>'],
      ['not a url'],
      ['//example.com/relative'],
      ['http://user:secret@example.com/'],
    ])('422 with details on url for %s', async (url) => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api().post('/websites').set(account.auth).send({ name: 'Bad', url });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validationBody(['url']));
      expect(detailFields(res.body)).toEqual(['url']);
    });

    it('POST with Content-Type: application/json and an empty body is 422 (missing name and url), not 400/500', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api().post('/websites').set(account.auth).set('Content-Type', 'application/json').send('');
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validationBody(['name', 'url']));
      expect(detailFields(res.body)).toEqual(['name', 'url']);
    });

    it('a JSON body that is not an object (an array, a number) is refused with 4xx, never 500 or 201', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      for (const raw of ['[]', '42', '"text"', 'null']) {
        const res = await api().post('/websites').set(account.auth).set('Content-Type', 'application/json').send(raw);
        expect([400, 422]).toContain(res.status);
        expect(res.body).toMatchObject({ success: false, code: res.status === 400 ? 'bad_request' : 'validation_failed' });
      }
      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);
    });
  });

  describe('Request bodies that cannot be used', () => {
    it('malformed JSON → 400 bad_request, still with the X-RateLimit-* headers', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api().post('/websites').set(account.auth).set('Content-Type', 'application/json').send('{"name": "x", "url": ');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: expect.any(String), code: 'bad_request' });
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      expect(res.headers['x-ratelimit-remaining']).toBe('19');
      expect(res.headers['x-ratelimit-reset']).toBe(String((minute + 60_000) / 1000));
    });

    it('text/plain body → 400 bad_request', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api()
        .post('/websites')
        .set(account.auth)
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify({ name: 'x', url: 'https://example.com/' }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: expect.any(String), code: 'bad_request' });
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);
    });

    it('an application/x-www-form-urlencoded body → 400 bad_request (wrong content type), nothing created', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api()
        .post('/websites')
        .set(account.auth)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('name=Form&url=https%3A%2F%2Fexample.com%2F');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: expect.any(String), code: 'bad_request' });
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);
    });

    it('a body of exactly 1 MiB is read (422: name too long); 1 MiB + 1 byte → 413 payload_too_large', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const sized = (bytes: number): string => {
        const skeleton = JSON.stringify({ name: '', url: 'https://example.com/' });
        const body = JSON.stringify({ name: 'n'.repeat(bytes - skeleton.length), url: 'https://example.com/' });
        expect(Buffer.byteLength(body)).toBe(bytes);
        return body;
      };
      const atLimit = await api()
        .post('/websites')
        .set(account.auth)
        .set('Content-Type', 'application/json')
        .send(sized(1024 * 1024));
      expect(atLimit.status).toBe(422);
      expect(detailFields(atLimit.body)).toEqual(['name']);
      const over = await api()
        .post('/websites')
        .set(account.auth)
        .set('Content-Type', 'application/json')
        .send(sized(1024 * 1024 + 1));
      expect(over.status).toBe(413);
      expect(over.body).toEqual({ success: false, error: expect.any(String), code: 'payload_too_large' });
      // Authenticated and counted like any other answer: the X-RateLimit-* headers ride on the 413 too.
      expect(over.headers['x-ratelimit-limit']).toBe('20');
      expect(over.headers['x-ratelimit-remaining']).toBe('18');
      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);
    });

    it('an oversized body without a valid token is 401 (authentication is answered first); a chunked one is cut off at 1 MiB → 413', async () => {
      const big = JSON.stringify({ name: 'n'.repeat(2 * 1024 * 1024), url: 'https://example.com/' });
      const anonymous = await api().post('/websites').set('Content-Type', 'application/json').send(big);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ success: false, error: 'Unauthorized', code: 'unauthorized' });

      const account = await t.createAccount({ plan: 'pro' });
      // No Content-Length: the body arrives in chunks and is refused the moment it passes the limit.
      const chunked = await new Promise<{ status: number; body: string; limit?: string }>((resolve, reject) => {
        const req = httpRequest(
          `${t.url}/websites`,
          { method: 'POST', headers: { ...account.auth, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, limit: res.headers['x-ratelimit-limit'] as string }));
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 6; i++) req.write(big.slice(i * 400_000, (i + 1) * 400_000));
        req.end(big.slice(6 * 400_000));
      });
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body)).toEqual({ success: false, error: expect.any(String), code: 'payload_too_large' });
      expect(chunked.limit).toBe('20');
      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);
    });
  });

  describe('Hostile values: deep nesting, NUL characters, integers no id column can hold', () => {
    it('a 200 KB body of nested arrays → 400 bad_request (not a stack overflow 500), with the X-RateLimit-* headers', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const deep = `{"name":"a","url":"https://example.com/","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
      const res = await api().post('/websites').set(account.auth).set('Content-Type', 'application/json').send(deep);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: expect.stringContaining('nests deeper'), code: 'bad_request' });
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      // Ordinary nesting (a scenario's steps) is far below the cap.
      const fine = await api()
        .post('/websites')
        .set(account.auth)
        .set('Content-Type', 'application/json')
        .send(`{"name":"a","url":"https://example.com/","x":${'['.repeat(20)}${']'.repeat(20)}}`);
      expect(fine.status).toBe(422);
      expect(detailFields(fine.body)).toEqual(['x']);
      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);
    });

    it('NUL characters in text fields → 422 naming every such field (PostgreSQL would refuse them with a 500), nothing stored', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api().post('/websites').set(account.auth).send({ name: 'a\u0000b', url: 'https://example.com/\u0000' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validationBody(['name', 'url']));
      expect(detailFields(res.body)).toEqual(['name', 'url']);
      const site = await createWebsite(account, { name: 'ok', url: 'https://example.com/' });
      const put = await api().put(`/websites/${site.id}`).set(account.auth).send({ name: '\u0000' });
      expect(put.status).toBe(422);
      expect(detailFields(put.body)).toEqual(['name']);
      const steps = await api()
        .post('/scenarios')
        .set(account.auth)
        .send({ name: 's', website_id: site.id, steps: [{ type: 'fill', selector: '#q', value: 'x\u0000' }] });
      expect(steps.status).toBe(422);
      expect(detailFields(steps.body)).toEqual(['steps[0].value']);
      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.data.map((w: { name: string }) => w.name)).toEqual(['ok']);
    });

    it('page, per_page and id filters accept plain decimal integers only, up to 2147483647: anything else is 422, never 500', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const cases: Array<[string, string]> = [
        ['/websites?page=99999999999999999999', 'page'],
        ['/websites?page=2147483648', 'page'],
        ['/websites?page=0x10', 'page'],
        ['/websites?per_page=1e1', 'per_page'],
        ['/websites?page=%207', 'page'],
        ['/websites?page=1&page=2', 'page'],
        ['/screenshots?website_id=2147483648', 'website_id'],
        ['/screenshots?scenario_id=99999999999', 'scenario_id'],
        ['/scenarios?website_id=2147483648', 'website_id'],
        ['/jobs?website_id=2147483648', 'website_id'],
      ];
      for (const [path, field] of cases) {
        const res = await api().get(path).set(account.auth);
        expect({ path, status: res.status }).toEqual({ path, status: 422 });
        expect(detailFields(res.body)).toEqual([field]);
      }
      const last = await api().get('/websites?page=2147483647&per_page=100').set(account.auth).expect(200);
      expect(last.body.data).toEqual([]);
      expect(last.body.meta.current_page).toBe(2147483647);
    });

    it('ids in bodies beyond 2147483647 → 422 naming the field (bulk download, scenarios, schedules)', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const bulk = await api()
        .post('/screenshots/download-bulk')
        .set(account.auth)
        .send({ screenshot_ids: [1, 2147483648] });
      expect(bulk.status).toBe(422);
      expect(detailFields(bulk.body)).toEqual(['screenshot_ids']);
      const scenario = await api()
        .post('/scenarios')
        .set(account.auth)
        .send({ name: 's', website_id: 2147483648, steps: [{ type: 'wait', duration: 0 }] });
      expect(scenario.status).toBe(422);
      expect(detailFields(scenario.body)).toContain('website_id');
      const schedule = await api()
        .post('/schedules')
        .set(account.auth)
        .send({ name: 's', website_id: 99999999999, frequency: 'daily', time: '07:00', timezone: 'UTC' });
      expect(schedule.status).toBe(422);
      expect(detailFields(schedule.body)).toContain('website_id');
    });
  });

  describe('One 422 names every bad field (API.md), whether the DTO or the domain checks it', () => {
    it.each([
      ['post', '/websites', { name: '', url: 'ftp://x' }, ['name', 'url']],
      ['post', '/websites', { name: 'ok', url: 'http://user:pw@example.com/', viewport_width: 5 }, ['url', 'viewport_width']],
      ['post', '/scenarios', { name: 5, website_id: 1, steps: [] }, ['name', 'steps']],
      [
        'post',
        '/scenarios',
        { name: 'x', website_id: 'one', steps: [{ type: 'click' }, { type: 'teleport' }] },
        ['steps[0].selector', 'steps[1].type', 'website_id'],
      ],
      ['post', '/schedules', { name: 5, website_id: 1, frequency: 'daily', time: '25:00', timezone: 'Mars/Olympus' }, ['name', 'time', 'timezone']],
    ])('%s %s %j → 422 naming %j', async (method, path, body, fields) => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await (api() as unknown as Record<string, (p: string) => request.Test>)[method](path).set(account.auth).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validationBody(fields));
      expect(detailFields(res.body)).toEqual(fields);
    });

    it('PUT /websites/{id} with a bad name and a bad url names both, and changes nothing', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'keep', url: 'https://example.com/' });
      const res = await api().put(`/websites/${site.id}`).set(account.auth).send({ name: '', url: 'javascript:alert(1)' });
      expect(res.status).toBe(422);
      expect(detailFields(res.body)).toEqual(['name', 'url']);
      expect((await api().get(`/websites/${site.id}`).set(account.auth).expect(200)).body.data.name).toBe('keep');
    });
  });

  describe('capture_options (API.md, Capture options): the website’s wait_until', () => {
    it('defaults to stable, is stored on create, replaced by PUT and returned by GET', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const plain = await createWebsite(account, { name: 'Plain', url: 'https://example.com/' });
      expect(plain).toMatchObject({ capture_options: { wait_until: 'stable' } });

      const site = await createWebsite(account, { name: 'Idle', url: 'https://example.com/', capture_options: { wait_until: 'network_idle' } });
      expect(site).toMatchObject({ capture_options: { wait_until: 'network_idle' } });
      const updated = await api()
        .put(`/websites/${site.id}`)
        .set(account.auth)
        .send({ capture_options: { wait_until: 'domcontentloaded' } });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({ capture_options: { wait_until: 'domcontentloaded' } });
      // Another field changed alone leaves the saved options as they were.
      await api().put(`/websites/${site.id}`).set(account.auth).send({ name: 'Renamed' }).expect(200);
      const got = await api().get(`/websites/${site.id}`).set(account.auth).expect(200);
      expect(got.body.data).toMatchObject({ name: 'Renamed', capture_options: { wait_until: 'domcontentloaded' } });
    });

    it.each([
      ['an unknown wait_until', { wait_until: 'soon' }, 'capture_options.wait_until'],
      ['an unknown option', { wait_until: 'load', colour: 'red' }, 'capture_options.colour'],
      ['not an object', 'stable', 'capture_options'],
      ['an array', [{ wait_until: 'load' }], 'capture_options'],
      ['null', null, 'capture_options'],
      ['quality with png', { quality: 80 }, 'capture_options.quality'],
      ['quality 0 with jpeg', { format: 'jpeg', quality: 0 }, 'capture_options.quality'],
      ['an unknown format', { format: 'bmp' }, 'capture_options.format'],
      ['pdf_paper with webp', { format: 'webp', pdf_paper: 'a4' }, 'capture_options.pdf_paper'],
      ['omit_background with pdf', { format: 'pdf', omit_background: true }, 'capture_options.omit_background'],
    ])('%s → 422 naming it, on create and on update, nothing stored', async (_, captureOptions, field) => {
      const account = await t.createAccount({ plan: 'pro' });
      const created = await api().post('/websites').set(account.auth).send({ name: 'x', url: 'https://example.com/', capture_options: captureOptions });
      expect(created.status).toBe(422);
      expect(created.body).toMatchObject({ success: false, code: 'validation_failed' });
      expect(created.body.details).toEqual([{ field, message: expect.any(String) }]);

      const site = await createWebsite(account, { name: 'y', url: 'https://example.com/' });
      const updated = await api().put(`/websites/${site.id}`).set(account.auth).send({ capture_options: captureOptions });
      expect(updated.status).toBe(422);
      expect(updated.body.details).toEqual([{ field, message: expect.any(String) }]);
      const got = await api().get(`/websites/${site.id}`).set(account.auth).expect(200);
      expect(got.body.data.capture_options).toEqual({ wait_until: 'stable', format: 'png', omit_background: false });
    });
  });

  describe('Get Website', () => {
    it('200 {data: Website} with last_screenshot_at null before any capture', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const created = await createWebsite(account, { name: 'Shop', url: 'https://shop.example.com/', viewport_width: 1024, viewport_height: 768 });
      const res = await api().get(`/websites/${created.id}`).set(account.auth);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data)).toEqual(expect.arrayContaining([...WEBSITE_FIELDS, 'last_screenshot_at']));
      expect(res.body.data).toMatchObject({
        id: created.id,
        name: 'Shop',
        url: 'https://shop.example.com/',
        viewport_width: 1024,
        viewport_height: 768,
        full_page: false,
        status: 'active',
        last_screenshot_at: null,
      });
    });

    it.each([['abc'], ['1.5'], ['-1'], ['0'], ['1e3'], ['99999999999'], ['%20']])(
      'a non-numeric or out-of-range id (/websites/%s) is 404 not_found',
      async (id) => {
        const account = await t.createAccount({ plan: 'pro' });
        for (const method of ['get', 'put', 'delete'] as const) {
          const req = api()[method](`/websites/${id}`).set(account.auth);
          const res = method === 'put' ? await req.send({ name: 'x' }) : await req;
          expect(res.status).toBe(404);
          expect(res.body).toEqual(NOT_FOUND);
        }
      },
    );

    it('an unknown numeric id is 404 not_found', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const res = await api().get('/websites/424242').set(account.auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    });
  });

  describe('List Websites', () => {
    let account: TestAccount;
    let ids: number[];

    beforeAll(async () => {
      account = await t.createAccount({ plan: 'pro' });
      ids = [];
      t.clock.set(new Date((minute += 60_000)));
      for (let i = 1; i <= 17; i++) {
        const w = await createWebsite(account, { name: `Site ${i}`, url: `https://site${i}.example.com/` });
        ids.push(w.id);
      }
    });

    function link(href: string | null): { origin: string; path: string; params: Record<string, string> } | null {
      if (href === null) return null;
      const u = new URL(href);
      return { origin: u.origin, path: u.pathname, params: Object.fromEntries(u.searchParams) };
    }

    it('page 1: the full envelope, 15 per page by default, newest first, absolute links with a page query', async () => {
      const res = await api().get('/websites').set(account.auth).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta']);
      expect(res.body.meta).toEqual({ current_page: 1, last_page: 2, per_page: 15, total: 17 });
      expect(res.body.data).toHaveLength(15);
      expect(res.body.data.map((w: { id: number }) => w.id)).toEqual([...ids].reverse().slice(0, 15));
      expect(res.body.data[0]).toMatchObject({ name: 'Site 17', url: 'https://site17.example.com/', last_screenshot_at: null });
      for (const w of res.body.data) expect(Object.keys(w)).toEqual(expect.arrayContaining([...WEBSITE_FIELDS, 'last_screenshot_at']));
      expect(link(res.body.links.first)).toEqual({ origin: t.url, path: '/websites', params: { page: '1' } });
      // Keyset paging (issue 45): next and last carry an opaque cursor beside the page number.
      expect(link(res.body.links.last)).toEqual({ origin: t.url, path: '/websites', params: { page: '2', cursor: expect.stringMatching(/^[\w-]+$/) } });
      expect(res.body.links.prev).toBeNull();
      expect(link(res.body.links.next)).toEqual({ origin: t.url, path: '/websites', params: { page: '2', cursor: expect.stringMatching(/^[\w-]+$/) } });
    });

    it('page 2: the remaining 2 (the oldest), prev set, next null', async () => {
      const res = await api().get('/websites?page=2').set(account.auth).expect(200);
      expect(res.body.meta).toEqual({ current_page: 2, last_page: 2, per_page: 15, total: 17 });
      expect(res.body.data.map((w: { id: number }) => w.id)).toEqual([ids[1], ids[0]]);
      expect(link(res.body.links.prev)).toEqual({ origin: t.url, path: '/websites', params: { page: '1' } });
      expect(res.body.links.next).toBeNull();
      expect(link(res.body.links.first)).toEqual({ origin: t.url, path: '/websites', params: { page: '1' } });
      expect(link(res.body.links.last)).toEqual({ origin: t.url, path: '/websites', params: { page: '2', cursor: expect.stringMatching(/^[\w-]+$/) } });
    });

    it('per_page is honoured and kept in the links', async () => {
      const res = await api().get('/websites?per_page=5&page=2').set(account.auth).expect(200);
      expect(res.body.meta).toEqual({ current_page: 2, last_page: 4, per_page: 5, total: 17 });
      expect(res.body.data.map((w: { id: number }) => w.id)).toEqual([...ids].reverse().slice(5, 10));
      const cursor = expect.stringMatching(/^[\w-]+$/);
      expect(link(res.body.links.next)).toEqual({ origin: t.url, path: '/websites', params: { page: '3', per_page: '5', cursor } });
      expect(link(res.body.links.prev)).toEqual({ origin: t.url, path: '/websites', params: { page: '1', per_page: '5' } });
      expect(link(res.body.links.last)).toEqual({ origin: t.url, path: '/websites', params: { page: '4', per_page: '5', cursor } });
    });

    it('following next, prev and last (keyset cursors) gives exactly the pages page=N gives, with the same envelope', async () => {
      const byPage = async (n: number) => (await api().get(`/websites?per_page=5&page=${n}`).set(account.auth).expect(200)).body;
      const follow = async (href: string) => {
        const u = new URL(href);
        return (await api().get(`${u.pathname}${u.search}`).set(account.auth).expect(200)).body;
      };
      const ids = (body: { data: Array<{ id: number }> }) => body.data.map((w) => w.id);
      let body = await byPage(1);
      for (let n = 2; n <= 4; n++) {
        body = await follow(body.links.next);
        const expected = await byPage(n);
        expect(ids(body)).toEqual(ids(expected));
        expect(body.meta).toEqual(expected.meta);
        expect(Object.keys(body.links)).toEqual(['first', 'last', 'prev', 'next']);
      }
      expect(body.links.next).toBeNull();
      // Back from the last page through prev, and to the last page from the first.
      for (let n = 3; n >= 1; n--) {
        body = await follow(body.links.prev);
        expect(ids(body)).toEqual(ids(await byPage(n)));
        expect(body.meta.current_page).toBe(n);
      }
      expect(body.links.prev).toBeNull();
      const last = await follow(body.links.last);
      expect(ids(last)).toEqual(ids(await byPage(4)));
      expect(last.meta).toEqual({ current_page: 4, last_page: 4, per_page: 5, total: 17 });
    });

    it.each([
      ['not base64', 'cursor=%25%25%25'],
      ['base64 of something else', `cursor=${Buffer.from('hello').toString('base64url')}`],
      ['a key of the wrong kind', `cursor=${Buffer.from(JSON.stringify({ p: 2, a: ['x'] })).toString('base64url')}`],
      ['too many keys', `cursor=${Buffer.from(JSON.stringify({ p: 2, a: [1, 2] })).toString('base64url')}`],
      ['no page', `cursor=${Buffer.from(JSON.stringify({ a: [1] })).toString('base64url')}`],
      ['too long', `cursor=${'a'.repeat(1001)}`],
    ])('a bad cursor (%s) → 422 validation_failed naming cursor', async (_name, query) => {
      const res = await api().get(`/websites?${query}`).set(account.auth).expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['cursor']);
    });

    it('per_page=100 is allowed (all 17 on one page)', async () => {
      const res = await api().get('/websites?per_page=100').set(account.auth).expect(200);
      expect(res.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 100, total: 17 });
      expect(res.body.data).toHaveLength(17);
      expect(res.body.links.next).toBeNull();
      expect(res.body.links.prev).toBeNull();
    });

    it.each([
      ['per_page=101', 'per_page'],
      ['per_page=0', 'per_page'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
    ])('%s → 422 validation_failed naming the parameter', async (query, field) => {
      const res = await api().get(`/websites?${query}`).set(account.auth);
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validationBody([field]));
      expect(detailFields(res.body)).toEqual([field]);
    });

    it('a page beyond the last → 200 with empty data and the true totals', async () => {
      const res = await api().get('/websites?page=3').set(account.auth).expect(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta).toEqual({ current_page: 3, last_page: 2, per_page: 15, total: 17 });
      expect(res.body.links.next).toBeNull();
    });

    it('an account without websites gets an empty envelope with last_page 1', async () => {
      const empty = await t.createAccount({ plan: 'pro' });
      const res = await api().get('/websites').set(empty.auth).expect(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 0 });
      expect(link(res.body.links.first)).toEqual({ origin: t.url, path: '/websites', params: { page: '1' } });
      expect(link(res.body.links.last)).toEqual({ origin: t.url, path: '/websites', params: { page: '1' } });
      expect(res.body.links.prev).toBeNull();
      expect(res.body.links.next).toBeNull();
    });
  });

  describe('Update Website (PUT, partial)', () => {
    it('name only → 200 {success: true, data: full website}; the other fields stay', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const created = await createWebsite(account, {
        name: 'Before',
        url: 'https://before.example.com/',
        viewport_width: 1024,
        viewport_height: 700,
        full_page: true,
      });
      const res = await api().put(`/websites/${created.id}`).set(account.auth).send({ name: 'After' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: expect.any(Object) });
      expect(Object.keys(res.body.data)).toEqual(expect.arrayContaining(WEBSITE_FIELDS));
      expect(res.body.data).toMatchObject({
        id: created.id,
        name: 'After',
        url: 'https://before.example.com/',
        viewport_width: 1024,
        viewport_height: 700,
        full_page: true,
        status: 'active',
      });
      const got = await api().get(`/websites/${created.id}`).set(account.auth).expect(200);
      expect(got.body.data).toMatchObject({ name: 'After', viewport_width: 1024, viewport_height: 700, full_page: true });
    });

    it('viewport_width only → 200 with the new width and everything else unchanged', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const created = await createWebsite(account, { name: 'Wide', url: 'https://wide.example.com/' });
      const res = await api().put(`/websites/${created.id}`).set(account.auth).send({ viewport_width: 1920 });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toMatchObject({
        id: created.id,
        name: 'Wide',
        url: 'https://wide.example.com/',
        viewport_width: 1920,
        viewport_height: 800,
        full_page: false,
        status: 'active',
      });
      const got = await api().get(`/websites/${created.id}`).set(account.auth).expect(200);
      expect(got.body.data.viewport_width).toBe(1920);
    });

    it('several fields at once, including url, full_page and status paused', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const created = await createWebsite(account, { name: 'Multi', url: 'https://multi.example.com/' });
      const res = await api()
        .put(`/websites/${created.id}`)
        .set(account.auth)
        .send({ url: 'https://new.example.com/landing', viewport_height: 1000, full_page: true, status: 'paused' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ name: 'Multi', url: 'https://new.example.com/landing', viewport_height: 1000, full_page: true, status: 'paused' });
    });

    it('the body may be any subset of the Website fields: the whole GET representation sent back with a new name → 200', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const created = await createWebsite(account, { name: 'Echo', url: 'https://echo.example.com/' });
      const got = await api().get(`/websites/${created.id}`).set(account.auth).expect(200);
      const res = await api()
        .put(`/websites/${created.id}`)
        .set(account.auth)
        .send({ ...got.body.data, name: 'Echoed' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: created.id, name: 'Echoed', url: 'https://echo.example.com/', status: 'active' });
      const after = await api().get(`/websites/${created.id}`).set(account.auth).expect(200);
      expect(after.body.data).toMatchObject({ id: created.id, name: 'Echoed', last_screenshot_at: null });
    });

    it.each([
      ['viewport_width 100', { viewport_width: 100 }, ['viewport_width']],
      ['viewport_height 5000', { viewport_height: 5000 }, ['viewport_height']],
      ['empty name', { name: '' }, ['name']],
      ['name null', { name: null }, ['name']],
      ['url ftp://x', { url: 'ftp://x' }, ['url']],
      ['url javascript:alert(1)', { url: 'javascript:alert(1)' }, ['url']],
      ['viewport_width "1280"', { viewport_width: '1280' }, ['viewport_width']],
      ['full_page "yes"', { full_page: 'yes' }, ['full_page']],
      ['an unknown field', { colour: 'red' }, ['colour']],
      ['a valid name with an invalid width', { name: 'Changed', viewport_width: 5000 }, ['viewport_width']],
    ])('422 for %s, and nothing is changed', async (_, body, fields) => {
      const account = await t.createAccount({ plan: 'pro' });
      const created = await createWebsite(account, { name: 'Stable', url: 'https://stable.example.com/', viewport_width: 1100, viewport_height: 900 });
      const before = await api().get(`/websites/${created.id}`).set(account.auth).expect(200);
      const res = await api().put(`/websites/${created.id}`).set(account.auth).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validationBody(fields));
      expect(detailFields(res.body)).toEqual(fields);
      const after = await api().get(`/websites/${created.id}`).set(account.auth).expect(200);
      expect(after.body.data).toEqual(before.body.data);
    });
  });

  describe('Delete Website', () => {
    it('200 {success: true, message}; afterwards GET, PUT and DELETE are 404 and the list no longer has it', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const keep = await createWebsite(account, { name: 'Keep', url: 'https://keep.example.com/' });
      const gone = await createWebsite(account, { name: 'Gone', url: 'https://gone.example.com/' });
      const res = await api().delete(`/websites/${gone.id}`).set(account.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: expect.any(String) });
      expect(res.body.message.length).toBeGreaterThan(0);

      const get = await api().get(`/websites/${gone.id}`).set(account.auth);
      expect(get.status).toBe(404);
      expect(get.body).toEqual(NOT_FOUND);
      const put = await api().put(`/websites/${gone.id}`).set(account.auth).send({ name: 'Zombie' });
      expect(put.status).toBe(404);
      expect(put.body).toEqual(NOT_FOUND);
      const again = await api().delete(`/websites/${gone.id}`).set(account.auth);
      expect(again.status).toBe(404);
      expect(again.body).toEqual(NOT_FOUND);
      const shot = await api().post(`/websites/${gone.id}/screenshot`).set(account.auth);
      expect(shot.status).toBe(404);
      expect(shot.body).toEqual(NOT_FOUND);

      const list = await api().get('/websites').set(account.auth).expect(200);
      expect(list.body.data.map((w: { id: number }) => w.id)).toEqual([keep.id]);
      expect(list.body.meta.total).toBe(1);
    });
  });

  describe('Tenant isolation', () => {
    it("another account's website is 404 on GET, PUT, DELETE and Take Screenshot, and absent from its list", async () => {
      const owner = await t.createAccount({ plan: 'pro' });
      const other = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(owner, { name: 'Private', url: 'https://private.example.com/' });
      await createWebsite(other, { name: 'Theirs', url: 'https://theirs.example.com/' });

      const get = await api().get(`/websites/${site.id}`).set(other.auth);
      expect(get.status).toBe(404);
      expect(get.body).toEqual(NOT_FOUND);

      const put = await api().put(`/websites/${site.id}`).set(other.auth).send({ name: 'Hijacked' });
      expect(put.status).toBe(404);
      expect(put.body).toEqual(NOT_FOUND);

      const del = await api().delete(`/websites/${site.id}`).set(other.auth);
      expect(del.status).toBe(404);
      expect(del.body).toEqual(NOT_FOUND);

      const shot = await api().post(`/websites/${site.id}/screenshot`).set(other.auth);
      expect(shot.status).toBe(404);
      expect(shot.body).toEqual(NOT_FOUND);

      const list = await api().get('/websites?per_page=100').set(other.auth).expect(200);
      expect(list.body.meta.total).toBe(1);
      expect(list.body.data.map((w: { id: number }) => w.id)).not.toContain(site.id);
      expect(list.body.data[0].name).toBe('Theirs');

      // The owner's website is untouched by all of that.
      const mine = await api().get(`/websites/${site.id}`).set(owner.auth).expect(200);
      expect(mine.body.data).toMatchObject({ id: site.id, name: 'Private' });
      const jobs = await api().get('/jobs').set(owner.auth).expect(200);
      expect(jobs.body.meta.total).toBe(0);
    });

    it('a foreign id and an unknown id get byte-identical 404 bodies (no existence leak)', async () => {
      const owner = await t.createAccount({ plan: 'pro' });
      const other = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(owner, { name: 'Hidden', url: 'https://hidden.example.com/' });
      const foreign = await api().get(`/websites/${site.id}`).set(other.auth).expect(404);
      const unknown = await api()
        .get(`/websites/${site.id + 100000}`)
        .set(other.auth)
        .expect(404);
      expect(foreign.text).toBe(unknown.text);
    });
  });
});

describe('Websites with the URL policy on (ALLOW_PRIVATE_NETWORKS=false)', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestApp({ env: { ALLOW_PRIVATE_NETWORKS: 'false' } });
    account = await t.createAccount({ plan: 'pro' });
  });
  afterAll(async () => t.close());
  beforeEach(() => t.clock.advance(60_000));

  it('http://10.0.0.1/ → 422 with details [{field: "url", message: "url resolves to a private address"}]', async () => {
    const res = await request(t.url).post('/websites').set(account.auth).send({ name: 'Intranet', url: 'http://10.0.0.1/' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      error: expect.any(String),
      code: 'validation_failed',
      details: [{ field: 'url', message: 'url resolves to a private address' }],
    });
  });

  it.each([
    ['http://127.0.0.1/'],
    ['http://127.0.0.1:8080/admin'],
    ['http://localhost/'],
    ['http://169.254.169.254/latest/meta-data/'],
    ['http://192.168.1.1/'],
    ['http://[::1]/'],
    ['http://2130706433/'],
  ])('%s → 422 with details on url, and nothing is stored', async (url) => {
    const res = await request(t.url).post('/websites').set(account.auth).send({ name: 'Internal', url });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      error: expect.any(String),
      code: 'validation_failed',
      details: [{ field: 'url', message: expect.stringMatching(/^url resolves to an? .+ address$/) }],
    });
    const list = await request(t.url).get('/websites').set(account.auth).expect(200);
    expect(list.body.meta.total).toBe(0);
  });

  it('a public address is accepted (the policy refuses only what it must)', async () => {
    const other = await t.createAccount({ plan: 'pro' });
    const res = await request(t.url).post('/websites').set(other.auth).send({ name: 'Public', url: 'http://93.184.216.34/' });
    expect(res.status).toBe(201);
    expect(res.body.data.url).toBe('http://93.184.216.34/');
  });

  it('PUT to a private address is refused with 422 on url and the stored url stays', async () => {
    const other = await t.createAccount({ plan: 'pro' });
    const created = await request(t.url).post('/websites').set(other.auth).send({ name: 'Public', url: 'http://93.184.216.34/' }).expect(201);
    const res = await request(t.url).put(`/websites/${created.body.data.id}`).set(other.auth).send({ url: 'http://10.0.0.1/' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      error: expect.any(String),
      code: 'validation_failed',
      details: [{ field: 'url', message: 'url resolves to a private address' }],
    });
    const got = await request(t.url).get(`/websites/${created.body.data.id}`).set(other.auth).expect(200);
    expect(got.body.data.url).toBe('http://93.184.216.34/');
  });
});
