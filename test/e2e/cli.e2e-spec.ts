import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);
const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

/** The operator CLI as built by `npm run build` (other tools rely on its exact interface). */
describe('operator CLI (dist/cli.js)', () => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    t = await startTestApp();
    env = { ...process.env, DATA_DIR: t.database.dataDir, DATABASE_URL: t.database.databaseUrl ?? '', LOG_LEVEL: 'silent' };
  });
  afterAll(async () => t.close());

  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run('node', [CLI, ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('account create prints one JSON line with the id and a working token', async () => {
    const res = await cli('account', 'create', '--email', 'ops@example.com', '--name', 'Ops', '--plan', 'starter');
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    const out = JSON.parse(res.stdout);
    expect(out).toEqual({ account_id: expect.any(Number), token: expect.stringMatching(/^sst_[A-Za-z0-9_-]{43}$/) });
    const me = await request(t.url).get('/test').set('Authorization', `Bearer ${out.token}`).expect(200);
    expect(me.body.user).toEqual({ id: out.account_id, name: 'Ops', email: 'ops@example.com', subscription_tier: 'starter' });
  });

  it('token create / list / revoke, and list never shows a secret or a hash', async () => {
    const created = JSON.parse((await cli('token', 'create', '--email', 'ops@example.com', '--name', 'ci')).stdout);
    expect(created).toEqual({ token_id: expect.any(Number), token: expect.stringMatching(/^sst_/) });
    await request(t.url).get('/test').set('Authorization', `Bearer ${created.token}`).expect(200);

    const listed = await cli('token', 'list', '--email', 'ops@example.com');
    expect(listed.code).toBe(0);
    const tokens = JSON.parse(listed.stdout);
    expect(tokens.map((tk: { name: string }) => tk.name).sort()).toEqual(['ci', 'default']);
    expect(listed.stdout).not.toContain(created.token);
    const [row] = await t.app.get(DataSource).query(`SELECT token_hash FROM api_tokens WHERE id = ${created.token_id}`);
    expect(listed.stdout).not.toContain(row.token_hash);

    const revoked = await cli('token', 'revoke', '--id', String(created.token_id));
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).revoked_at).toEqual(expect.any(String));
    await request(t.url).get('/test').set('Authorization', `Bearer ${created.token}`).expect(401);
  });

  it('account update changes plan, status and limits', async () => {
    const out = JSON.parse((await cli('account', 'create', '--email', 'up@example.com', '--name', 'Up', '--plan', 'pro')).stdout);
    const auth = { Authorization: `Bearer ${out.token}` };
    let res = await cli('account', 'update', '--email', 'up@example.com', '--plan', 'free');
    expect(res.code).toBe(0);
    await request(t.url).get('/test').set(auth).expect(403);
    res = await cli('account', 'update', '--email', 'up@example.com', '--plan', 'business', '--limit-per-minute', '7', '--limit-per-hour', '70');
    expect(JSON.parse(res.stdout)).toMatchObject({ plan: 'business', rate_limit_per_minute: 7, rate_limit_per_hour: 70 });
    const me = await request(t.url).get('/test').set(auth).expect(200);
    expect(me.headers['x-ratelimit-limit']).toBe('7');
    res = await cli('account', 'update', '--email', 'up@example.com', '--status', 'expired');
    await request(t.url).get('/test').set(auth).expect(403);
  });

  it.each([
    [['account', 'create', '--email', 'x@example.com', '--name', 'X', '--plan', 'gold'], /plan/],
    [['account', 'create', '--email', 'not-an-email', '--name', 'X', '--plan', 'pro'], /email/],
    [['account', 'create', '--name', 'X', '--plan', 'pro'], /--email is required/],
    [['account', 'create', '--email', 'y@example.com', '--name', 'Y', '--plan', 'pro', '--bogus', '1'], /unknown option --bogus/],
    [['account', 'update', '--email', 'ops@example.com', '--status', 'paused'], /status/],
    [['account', 'update', '--email', 'ops@example.com', '--expires-at', 'tomorrow'], /expires-at/],
    [['token', 'revoke', '--id', 'abc'], /--id/],
    [['token', 'list', '--email', 'nobody@example.com'], /not found/i],
    [['frobnicate'], /unknown command/],
  ])('bad arguments %j → one line on stderr, exit code 2', async (args, message) => {
    const res = await cli(...args);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(message);
  });
});
