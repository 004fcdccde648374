import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import ts from 'typescript';
import { buildOpenApiDocument } from '../../clients/typescript/scripts/openapi-document';
import { ApiError, createClient, render, ScreenshotClient, signRenderUrl, waitForExecution, waitForJob, WaitTimeoutError } from '../../clients/typescript/src';
import { decodeImage, RED } from '../support/images';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The package in clients/typescript spoken to the running service, the way its README tells a user to: typed
 * requests through openapi-fetch, long-polled jobs, bytes that decode, and errors that come back in their types.
 */

const run = promisify(execFile);
const CLIENT_DIR = join(__dirname, '..', '..', 'clients', 'typescript');

describe('TypeScript client (clients/typescript) against the running service', () => {
  let t: TestApp;
  let pages: PageServer;
  let alice: TestAccount;
  let client: ScreenshotClient;

  beforeAll(async () => {
    pages = await new PageServer({ '/red': solidPage('rgb(255,0,0)'), '/held': () => undefined }).start();
    t = await startTestApp();
    alice = await t.createAccount({ plan: 'business' });
    client = createClient({ baseUrl: `${t.url}/`, token: alice.token });
  });
  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });

  async function createWebsite(name: string, url = `${pages.url}/red`): Promise<number> {
    const { data, error, response } = await client.POST('/websites', { body: { name, url } });
    expect({ status: response.status, error }).toEqual({ status: 201, error: undefined });
    return data!.data.id;
  }

  it('the generator reads the very document the service serves (npm run generate:client builds it without listening)', async () => {
    const served = (await request(t.url).get('/openapi.json').expect(200)).body;
    expect(JSON.parse(JSON.stringify(await buildOpenApiDocument()))).toEqual(served);
  });

  it('creates a website, takes a screenshot, long-polls the job to success and downloads a PNG that decodes', async () => {
    const websiteId = await createWebsite('Red page');
    const taken = await client.POST('/websites/{id}/screenshot', {
      params: { path: { id: websiteId } },
      body: { viewport_width: 320, viewport_height: 240, format: 'png' },
    });
    expect(taken.response.status).toBe(200);
    const job = await waitForJob(client, taken.data!.job_id, { timeoutMs: 60_000 });
    expect(job).toMatchObject({ id: taken.data!.job_id, type: 'screenshot', status: 'succeeded', error: null, website_id: websiteId });

    const screenshot = await client.GET('/screenshots/{id}', { params: { path: { id: job.screenshot_id! } } });
    expect(screenshot.data!.data).toMatchObject({ id: job.screenshot_id, website_id: websiteId, width: 320, height: 240, format: 'png' });

    const file = await client.GET('/screenshots/{id}/download', { params: { path: { id: job.screenshot_id! } }, parseAs: 'arrayBuffer' });
    expect(file.response.headers.get('content-type')).toBe('image/png');
    const image = await decodeImage(Buffer.from(file.data!));
    expect({ format: image.format, width: image.width, height: image.height, centre: image.at(160, 120) }).toEqual({
      format: 'png',
      width: 320,
      height: 240,
      centre: RED,
    });
  });

  it('lists page by page with the pagination envelope typed', async () => {
    const bob = await t.createAccount({ plan: 'business' });
    const bobs = createClient({ baseUrl: t.url, token: bob.token });
    for (const name of ['One', 'Two', 'Three']) {
      expect((await bobs.POST('/websites', { body: { name, url: `${pages.url}/red` } })).response.status).toBe(201);
    }
    const first = await bobs.GET('/websites', { params: { query: { page: 1, per_page: 2 } } });
    const second = await bobs.GET('/websites', { params: { query: { page: 2, per_page: 2 } } });
    expect(first.data!.meta).toEqual({ current_page: 1, last_page: 2, per_page: 2, total: 3 });
    expect(second.data!.meta).toEqual({ current_page: 2, last_page: 2, per_page: 2, total: 3 });
    // Newest first, each website once.
    expect([...first.data!.data, ...second.data!.data].map((w) => w.name)).toEqual(['Three', 'Two', 'One']);
    expect(first.data!.links.next).toEqual(expect.stringContaining('page=2'));
    expect(second.data!.links.next).toBeNull();
  });

  it('answers a 404 and a 422 as typed error bodies, not exceptions', async () => {
    const missing = await client.GET('/websites/{id}', { params: { path: { id: 2147483647 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    // `code` is a union of the documented codes: comparing it with one the document lacks would not compile.
    expect(missing.error?.code === 'not_found').toBe(true);
    expect(missing.error).toEqual({ success: false, error: expect.any(String), code: 'not_found' });

    const invalid = await client.POST('/websites', { body: { name: '', url: 'not a url' } });
    expect(invalid.response.status).toBe(422);
    const body = invalid.error!;
    expect(body.code === 'validation_failed' && 'details' in body ? body.details.map((d) => d.field).sort() : body).toEqual(['name', 'url']);
  });

  it('waitForJob gives up at its timeout with the last state it saw', async () => {
    const websiteId = await createWebsite('Never answers', `${pages.url}/held`);
    const taken = await client.POST('/websites/{id}/screenshot', { params: { path: { id: websiteId } } });
    const started = Date.now();
    const outcome = await waitForJob(client, taken.data!.job_id, { timeoutMs: 1500 }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(WaitTimeoutError);
    expect((outcome as WaitTimeoutError<{ status: string }>).last.status).toMatch(/^(queued|running)$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    // One long-poll of 2 s (the timeout rounded up to whole seconds), then the answer; generous under load.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('waitForJob and waitForExecution throw an ApiError with the code for an unknown id', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    await expect(waitForJob(client, id)).rejects.toMatchObject({ name: 'ApiError', status: 404, code: 'not_found' });
    await expect(waitForExecution(client, id)).rejects.toBeInstanceOf(ApiError);
  });

  it('waitForExecution long-polls a scenario run to its end', async () => {
    const websiteId = await createWebsite('Scenario page');
    const scenario = await client.POST('/scenarios', {
      body: { name: 'Wait then shoot', website_id: websiteId, steps: [{ type: 'wait', duration: 100 }] },
    });
    expect(scenario.response.status).toBe(201);
    const run = await client.POST('/scenarios/{id}/run', { params: { path: { id: scenario.data!.data.id } } });
    const execution = await waitForExecution(client, run.data!.execution_id, { timeoutMs: 60_000 });
    expect(execution).toMatchObject({ id: run.data!.execution_id, status: 'succeeded' });
  });

  describe('GET /render and signed links (API.md, third round)', () => {
    let key: { id: string | number; access_key: string; secret: string };
    const params = () => ({ url: `${pages.url}/red`, viewport_width: 320, viewport_height: 240 });

    beforeAll(async () => {
      const created = await client.POST('/render-keys', { body: {} });
      expect(created.response.status).toBe(201);
      key = created.data!.data;
    });

    it('render() answers the image bytes with the bearer token, then from the cache', async () => {
      const miss = await render(client, { ...params(), cache_ttl: 60 });
      expect({ type: miss.contentType, cache: miss.cache }).toEqual({ type: 'image/png', cache: 'MISS' });
      const image = await decodeImage(Buffer.from(miss.bytes));
      expect({ width: image.width, height: image.height, centre: image.at(160, 120) }).toEqual({ width: 320, height: 240, centre: RED });
      expect((await render(client, { ...params(), cache_ttl: 60 })).cache).toBe('HIT');
    });

    it('a signed link opens without a token; a changed query, a past expiry or a deleted key is 403', async () => {
      const link = signRenderUrl({
        baseUrl: t.url,
        accessKey: key.access_key,
        secret: key.secret,
        params: params(),
        expires: Math.floor(Date.now() / 1000) + 3600,
      });
      const ok = await fetch(link);
      expect({ status: ok.status, type: ok.headers.get('content-type') }).toEqual({ status: 200, type: 'image/png' });
      expect(ok.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      expect((await decodeImage(Buffer.from(await ok.arrayBuffer()))).at(160, 120)).toEqual(RED);

      const tampered = await fetch(link.replace('viewport_width=320', 'viewport_width=321'));
      expect({ status: tampered.status, code: ((await tampered.json()) as { code: string }).code }).toEqual({ status: 403, code: 'invalid_signature' });
      const expired = await fetch(signRenderUrl({ baseUrl: t.url, accessKey: key.access_key, secret: key.secret, params: params(), expires: 1 }));
      expect({ status: expired.status, code: ((await expired.json()) as { code: string }).code }).toEqual({ status: 403, code: 'link_expired' });

      expect((await client.DELETE('/render-keys/{id}', { params: { path: { id: Number(key.id) } } })).response.status).toBe(200);
      const revoked = await fetch(link);
      expect({ status: revoked.status, code: ((await revoked.json()) as { code: string }).code }).toEqual({ status: 403, code: 'invalid_signature' });
    });
  });
  describe('the package as built from its own folder (npm run build in clients/typescript)', () => {
    /** A project outside the repository that has the package installed (a symlink, as `npm link` makes). */
    let project: string;

    beforeAll(async () => {
      // Only node's and npm's folder on PATH: the build must find TypeScript itself, not through a tsc on PATH.
      const env = { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
      await run('npm', ['run', 'build', '--silent'], { cwd: CLIENT_DIR, env });
      project = mkdtempSync(join(tmpdir(), 'ts-client-user-'));
      mkdirSync(join(project, 'node_modules', '@screenshot-service'), { recursive: true });
      symlinkSync(CLIENT_DIR, join(project, 'node_modules', '@screenshot-service', 'client'), 'dir');
    }, 180_000);
    afterAll(() => project && rmSync(project, { recursive: true, force: true }));

    const node = async (args: string[], env: Record<string, string> = {}) =>
      (await run(process.execPath, args, { cwd: project, env: { ...process.env, ...env } })).stdout;

    it('answers `require` with dist/cjs and `import` with dist/esm through its exports map, both loadable', async () => {
      const manifest = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8'));
      expect(Object.keys(manifest.exports['.'])).toEqual(['import', 'require']);
      const probe = (load: string) =>
        `${load}; const names = Object.keys(m).filter((n) => n !== 'default').sort();` +
        ` const link = m.signRenderUrl({ baseUrl: 'http://x', accessKey: 'rk_1', secret: 'secret', params: { url: 'https://example.com' } });` +
        ` console.log(JSON.stringify({ names, link, client: typeof m.createClient({ baseUrl: 'http://x', token: 't' }).GET }));`;
      const required = JSON.parse(
        await node(['-e', `console.error(require.resolve('@screenshot-service/client')); ${probe("const m = require('@screenshot-service/client')")}`]),
      );
      const imported = JSON.parse(await node(['--input-type=module', '-e', probe("const m = await import('@screenshot-service/client')")]));
      const names = ['ApiError', 'WaitTimeoutError', 'createClient', 'render', 'signRenderUrl', 'waitForExecution', 'waitForJob'];
      // The signature signing.spec.ts checks against openssl, from both builds.
      const link = 'http://x/render?url=https%3A%2F%2Fexample.com&access_key=rk_1&signature=1f3f3f2b566fbbef7401ff6507e03a385d6955c72959b61fd931dedab4b5f3c2';
      expect(required).toEqual({ names, link, client: 'function' });
      expect(imported).toEqual({ names, link, client: 'function' });
      const where = await node(['--input-type=module', '-e', "console.log(import.meta.resolve('@screenshot-service/client'))"]);
      expect(where.trim()).toMatch(/\/dist\/esm\/index\.js$/);
      const whereCjs = await node(['-e', "console.log(require.resolve('@screenshot-service/client'))"]);
      expect(whereCjs.trim()).toMatch(/\/dist\/cjs\/index\.js$/);
      // Each build says what it is: Node reads dist/esm as ES modules and dist/cjs as CommonJS.
      expect(readFileSync(join(CLIENT_DIR, 'dist', 'esm', 'client.js'), 'utf8')).toMatch(/^import createFetchClient from 'openapi-fetch';$/m);
      expect(readFileSync(join(CLIENT_DIR, 'dist', 'cjs', 'client.js'), 'utf8')).toContain('require("openapi-fetch")');
    });

    /** The README's examples (`// name.mjs` or `// name.cjs` on their first line), as written. */
    const examples = () =>
      [...readFileSync(join(CLIENT_DIR, 'README.md'), 'utf8').matchAll(/```js\n\/\/ (\S+\.[cm]js)[^\n]*\n([\s\S]*?)```/g)].map(([, file, code]) => ({
        file,
        code,
      }));

    it('the README has its examples in both module systems', () => {
      expect(examples().map((e) => e.file)).toEqual(['shot.mjs', 'shot.cjs', 'site.mjs']);
    });

    it.each(['shot.mjs', 'shot.cjs', 'site.mjs'])("the README example %s runs as written (only the base URL and the page are the test's)", async (file) => {
      const { code } = examples().find((e) => e.file === file)!;
      const written = code.replaceAll("'http://localhost:3000'", `'${t.url}'`).replaceAll("'https://example.com'", `'${pages.url}/red'`);
      expect(written).not.toContain('localhost:3000');
      writeFileSync(join(project, file), written);
      await node([file], { SCREENSHOT_TOKEN: alice.token });
      const output = file === 'site.mjs' ? 'example-site.png' : 'example.png';
      const image = await decodeImage(readFileSync(join(project, output)));
      expect({ format: image.format, centre: image.at(Math.floor(image.width / 2), Math.floor(image.height / 2)) }).toEqual({ format: 'png', centre: RED });
      rmSync(join(project, output));
    });

    it('a misspelled field does not compile (viewport_widht), the same call spelled right does; npm run typecheck passes', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ts-client-types-'));
      const src = join(CLIENT_DIR, 'src');
      const call = (field: string) =>
        `import { createClient, render, signRenderUrl } from ${JSON.stringify(src)};\n` +
        `const api = createClient({ baseUrl: 'http://x', token: 't' });\n` +
        `export const rendered = render(api, { url: 'https://example.com', ${field}: 1280 });\n` +
        `export const created = api.POST('/websites', { body: { name: 'E', url: 'https://example.com', ${field}: 1280 } });\n` +
        `export const taken = api.POST('/websites/{id}/screenshot', { params: { path: { id: 1 } }, body: { ${field}: 1280 } });\n` +
        `export const link = signRenderUrl({ baseUrl: 'http://x', accessKey: 'k', secret: 's', params: { url: 'https://example.com', ${field}: 1280 } });\n`;
      writeFileSync(join(dir, 'wrong.ts'), call('viewport_widht'));
      writeFileSync(join(dir, 'right.ts'), call('viewport_width'));
      try {
        const { config } = ts.readConfigFile(join(CLIENT_DIR, 'tsconfig.json'), ts.sys.readFile);
        const { options } = ts.parseJsonConfigFileContent(config, ts.sys, CLIENT_DIR);
        const program = ts.createProgram([join(dir, 'wrong.ts'), join(dir, 'right.ts')], {
          ...options,
          rootDir: undefined,
          // The snippets' exports need no declarations (they would ask for nameable types, which is not the point).
          declaration: false,
          typeRoots: [join(__dirname, '..', '..', 'node_modules', '@types')],
        });
        const errors = ts.getPreEmitDiagnostics(program).map((d) => ({
          file: d.file ? d.file.fileName.slice(dir.length + 1) : null,
          line: d.file ? d.file.getLineAndCharacterOfPosition(d.start!).line + 1 : null,
          message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
          // Where the compiler points: the misspelled field itself (openapi-fetch's calls say "not assignable to never").
          at: d.file && d.start !== undefined && d.length !== undefined ? d.file.text.slice(d.start, d.start + d.length) : '',
        }));
        // Each misspelled call is refused (some more than once: an overload per media type), the right ones are not.
        expect(new Set(errors.map(({ file, line }) => `${file}:${line}`))).toEqual(new Set(['wrong.ts:3', 'wrong.ts:4', 'wrong.ts:5', 'wrong.ts:6']));
        for (const { message, at } of errors) expect(`${message} at ${at}`).toContain('viewport_widht');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      // The package's own check: type-tests/request-types.ts, every mistake marked // @ts-expect-error.
      await run('npm', ['run', 'typecheck', '--silent'], { cwd: CLIENT_DIR, env: { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` } });
    }, 240_000);
  });
});
