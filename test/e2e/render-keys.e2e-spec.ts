import { execFileSync } from 'node:child_process';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { RenderKeysService } from '../../src/modules/render-keys/application/render-keys.service';
import { signRenderQuery } from '../../src/modules/render-keys/domain/render-key';
import { toErrorResponse } from '../../src/shared/http/error-filter';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Render keys (issue 30, API.md "Signed links") end to end, on whichever database the run uses (SQLite, or
 * PostgreSQL + Redis with DATABASE_URL / REDIS_URL): the /render-keys routes over HTTP, the secret sealed in the
 * real table, and RenderKeysService.authenticateLink — what /render asks about a signed link — against links
 * signed by OpenSSL, not by this code.
 */

/** `printf '%s' query | openssl dgst -sha256 -hmac secret`: an independent signer. */
function opensslSign(query: string, secret: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input: query }).toString();
  return out.trim().split(' ').pop()!;
}

async function thrown(promise: Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (err) {
    return toErrorResponse(err);
  }
  throw new Error('expected a refusal');
}

describe('Render keys (/render-keys) and signed-link verification', () => {
  let t: TestApp;
  let alice: TestAccount;
  let bob: TestAccount;
  let keys: RenderKeysService;
  const api = () => request(t.url);

  beforeAll(async () => {
    t = await startTestApp();
    alice = await t.createAccount({ plan: 'pro' });
    bob = await t.createAccount({ plan: 'starter' });
    keys = t.app.get(RenderKeysService);
  });

  afterAll(async () => {
    await t?.close();
  });

  // Each test starts in a fresh rate-limit minute (Pro: 20 requests a minute).
  beforeEach(() => t.clock.advance(61_000));

  it('POST creates a key: 201 with the secret, shown once; GET lists it without the secret; the secret is sealed at rest', async () => {
    const created = await api().post('/render-keys').set(alice.auth).send({ name: 'Blog thumbnails' });
    expect(created.status).toBe(201);
    expect(created.headers['x-ratelimit-limit']).toBeDefined();
    expect(created.body).toEqual({
      success: true,
      data: {
        id: expect.any(Number),
        name: 'Blog thumbnails',
        access_key: expect.stringMatching(/^rk_[0-9a-f]{24}$/),
        secret: expect.stringMatching(/^rks_[0-9a-f]{64}$/),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });
    const { id, access_key, secret } = created.body.data as { id: number; access_key: string; secret: string };

    const listed = await api().get('/render-keys').set(alice.auth);
    expect(listed.status).toBe(200);
    expect(Object.keys(listed.body).sort()).toEqual(['data', 'links', 'meta']);
    expect(listed.body.data).toEqual([{ id, name: 'Blog thumbnails', access_key, created_at: created.body.data.created_at }]);
    expect(listed.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 1 });
    expect(listed.text).not.toContain(secret);

    const rows: Array<{ secret_sealed: string; access_key: string }> = await t.app
      .get(DataSource)
      .query('SELECT secret_sealed, access_key FROM render_keys WHERE id = ' + Number(id));
    expect(rows).toHaveLength(1);
    expect(rows[0].access_key).toBe(access_key);
    expect(rows[0].secret_sealed).toMatch(/^v1\./);
    expect(rows[0].secret_sealed).not.toContain(secret.slice(4, 20));
  });

  it('the name is optional (no body at all, {} or null); bad names and unknown fields are 422 validation_failed', async () => {
    const bare = await api().post('/render-keys').set(alice.auth);
    expect(bare.status).toBe(201);
    expect(bare.body.data.name).toBeNull();
    const empty = await api().post('/render-keys').set(alice.auth).send({});
    expect(empty.status).toBe(201);
    expect(empty.body.data.name).toBeNull();
    const nulled = await api().post('/render-keys').set(alice.auth).send({ name: null });
    expect(nulled.status).toBe(201);
    expect(nulled.body.data.name).toBeNull();

    for (const [body, field] of [
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 42 }, 'name'],
      [{ secret: 'mine' }, 'secret'],
    ] as const) {
      const res = await api().post('/render-keys').set(alice.auth).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: 'The given data was invalid', code: 'validation_failed' });
      expect((res.body.details as Array<{ field: string }>).map((d) => d.field)).toContain(field);
    }
    const list = await api().get('/render-keys').set(alice.auth);
    expect(list.body.meta.total).toBe(4);
    for (const key of list.body.data as Array<{ id: number; name: string | null }>) {
      if (key.name === null) expect((await api().delete(`/render-keys/${key.id}`).set(alice.auth)).status).toBe(200);
    }
  });

  it('bearer auth and a paid plan are required; ids are strict; another account’s key is a 404 and stays', async () => {
    expect((await api().get('/render-keys')).status).toBe(401);
    expect((await api().post('/render-keys').send({})).body).toEqual({ success: false, error: 'Unauthorized', code: 'unauthorized' });
    const free = await t.createAccount({ plan: 'free' });
    const refused = await api().post('/render-keys').set(free.auth).send({});
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, code: 'plan_no_api_access', current_plan: 'free' });

    const mine = await api().post('/render-keys').set(alice.auth).send({ name: 'mine' });
    const id = mine.body.data.id as number;
    const stranger = await api().delete(`/render-keys/${id}`).set(bob.auth);
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ success: false, error: 'Render key not found', code: 'not_found' });
    expect((await api().get('/render-keys').set(bob.auth)).body.data).toEqual([]);
    for (const bad of ['abc', '0', '-1', '1.5', '1e3', '99999999999999999999', ' 1']) {
      const res = await api()
        .delete(`/render-keys/${encodeURIComponent(bad)}`)
        .set(alice.auth);
      expect([bad, res.status, res.body.code]).toEqual([bad, 404, 'not_found']);
    }
    expect((await api().get('/render-keys').set(alice.auth)).body.data.map((k: { id: number }) => k.id)).toContain(id);
  });

  it('authenticateLink: a link signed by OpenSSL with the secret speaks for the key’s account', async () => {
    const created = await api().post('/render-keys').set(bob.auth).send({ name: 'img' });
    const { id, access_key, secret } = created.body.data as { id: number; access_key: string; secret: string };
    const expires = Math.floor(t.clock.now().getTime() / 1000) + 3600;
    const query = `url=https%3A%2F%2Fexample.com%2F%3Fa%3D1&viewport_width=390&full_page=true&access_key=${access_key}&expires=${expires}`;
    const signature = opensslSign(query, secret);
    expect(signRenderQuery(query, secret)).toBe(`${query}&signature=${signature}`);

    await expect(keys.authenticateLink(`${query}&signature=${signature}`, t.clock.now())).resolves.toEqual({ accountId: bob.id, keyId: id });
    await expect(keys.authenticateLink(`?${query}&signature=${signature}`, t.clock.now())).resolves.toEqual({ accountId: bob.id, keyId: id });

    // Past `expires`: 403 link_expired.
    const late = await thrown(keys.authenticateLink(`${query}&signature=${signature}`, new Date((expires + 1) * 1000)));
    expect(late).toEqual({
      status: 403,
      body: { success: false, error: `The link expired at ${new Date(expires * 1000).toISOString()}`, code: 'link_expired' },
    });

    // The query re-serialised (decoded) is not what was signed: 403 invalid_signature.
    const decoded = decodeURIComponent(query);
    expect(await thrown(keys.authenticateLink(`${decoded}&signature=${signature}`, t.clock.now()))).toEqual({
      status: 403,
      body: { success: false, error: 'The link’s signature is invalid', code: 'invalid_signature' },
    });
    // Signature not last, or another key's access_key on the same MAC.
    expect((await thrown(keys.authenticateLink(`${query}&signature=${signature}&format=png`, t.clock.now()))).body.code).toBe('invalid_signature');
    const other = await api().post('/render-keys').set(alice.auth).send({});
    const swapped = query.replace(access_key, other.body.data.access_key as string);
    expect((await thrown(keys.authenticateLink(`${swapped}&signature=${signature}`, t.clock.now()))).body.code).toBe('invalid_signature');
    // An access key nobody has: the same answer as a wrong MAC (nothing says which keys exist).
    const unknown = query.replace(access_key, 'rk_000000000000000000000000');
    expect(await thrown(keys.authenticateLink(`${unknown}&signature=${opensslSign(unknown, secret)}`, t.clock.now()))).toEqual({
      status: 403,
      body: { success: false, error: 'The link’s signature is invalid', code: 'invalid_signature' },
    });

    // Deleted: the same link is refused at once.
    const deleted = await api().delete(`/render-keys/${id}`).set(bob.auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: 'Render key deleted' });
    expect((await thrown(keys.authenticateLink(`${query}&signature=${signature}`, t.clock.now()))).body.code).toBe('invalid_signature');
    expect((await api().delete(`/render-keys/${id}`).set(bob.auth)).status).toBe(404);
  });

  it('at most 20 keys per account: the 21st is 422', async () => {
    const account = await t.createAccount({ plan: 'business' });
    for (let i = 0; i < 20; i += 1)
      expect(
        (
          await api()
            .post('/render-keys')
            .set(account.auth)
            .send({ name: `k${i}` })
        ).status,
      ).toBe(201);
    const over = await api().post('/render-keys').set(account.auth).send({ name: 'one more' });
    expect(over.status).toBe(422);
    expect(over.body).toEqual({
      success: false,
      error: 'The given data was invalid',
      code: 'validation_failed',
      details: [{ field: 'name', message: 'an account can have at most 20 render keys' }],
    });
    const page = await api().get('/render-keys?per_page=5&page=2').set(account.auth);
    expect(page.body.meta).toEqual({ current_page: 2, last_page: 4, per_page: 5, total: 20 });
    expect(page.body.data.map((k: { name: string }) => k.name)).toEqual(['k14', 'k13', 'k12', 'k11', 'k10']);
  });

  it('the limit holds under concurrency: 5 creates at once at 18 keys, exactly 2 are 201, the others the 422 of the limit', async () => {
    const account = await t.createAccount({ plan: 'business' });
    for (let i = 0; i < 18; i += 1) await keys.create(account.id, `k${i}`);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        api()
          .post('/render-keys')
          .set(account.auth)
          .send({ name: `racer ${i}` }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 422, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422)) {
      expect(refused.body).toEqual({
        success: false,
        error: 'The given data was invalid',
        code: 'validation_failed',
        details: [{ field: 'name', message: 'an account can have at most 20 render keys' }],
      });
    }
    expect((await keys.list(account.id, { page: 1, perPage: 100 })).total).toBe(20);

    // The service itself, called 5 times at once (the dashboard's path): the same 2 pass.
    const other = await t.createAccount({ plan: 'business' });
    for (let i = 0; i < 18; i += 1) await keys.create(other.id, `k${i}`);
    const settled = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => keys.create(other.id, `racer ${i}`)));
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    for (const s of settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected')) {
      expect(toErrorResponse(s.reason).body.details).toEqual([{ field: 'name', message: 'an account can have at most 20 render keys' }]);
    }
    expect((await keys.list(other.id, { page: 1, perPage: 100 })).total).toBe(20);
  });

  it('the OpenAPI document describes the routes, the secret-bearing create answer and the 404s', async () => {
    const doc = (await api().get('/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths['/render-keys']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/render-keys/{id}'])).toEqual(['delete']);
    expect(Object.keys(doc.paths['/render-keys'].post.responses)).toEqual(expect.arrayContaining(['201', '401', '403', '422', '429']));
    expect(JSON.stringify(doc.paths['/render-keys'].post.responses['201'])).toContain('RenderKeyWithSecret');
    expect(Object.keys(doc.paths['/render-keys/{id}'].delete.responses)).toEqual(expect.arrayContaining(['200', '404']));
  });
});
