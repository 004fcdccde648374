import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { redactDatabaseUrl } from '../../src/cli/database';
import { SignInService } from '../../src/modules/accounts/application/sign-in.service';
import { startTestApp, TestApp } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

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

  const cli = async (...args: string[]) => cliIn(env, ...args);
  const cliIn = async (where: NodeJS.ProcessEnv, ...args: string[]) => {
    try {
      const { stdout, stderr } = await run('node', [CLI, ...args], { env: where });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  /** The CLI with `input` on its standard input (how --password-stdin is meant to be used). */
  const cliWithInput = (input: string, ...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('node', [CLI, ...args], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(input);
    });

  it('account create --password-stdin sets a dashboard password that signs in, without changing the output', async () => {
    const res = await cliWithInput(
      'a long passphrase\n',
      'account',
      'create',
      '--email',
      'pw@example.com',
      '--name',
      'Pw',
      '--plan',
      'pro',
      '--password-stdin',
    );
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ account_id: expect.any(Number), token: expect.stringMatching(/^sst_/) });
    const signIn = t.app.get(SignInService);
    await expect(signIn.signIn('pw@example.com', 'a long passphrase')).resolves.toMatchObject({ account: { email: 'pw@example.com' } });
    const [row] = await t.app.get(DataSource).query(`SELECT password_hash FROM accounts WHERE email = 'pw@example.com'`);
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('passphrase');
  });

  it('account set-password replaces the password (the old one stops working) and ends open sessions', async () => {
    const signIn = t.app.get(SignInService);
    const before = await signIn.signIn('pw@example.com', 'a long passphrase');
    const res = await cliWithInput('another passphrase', 'account', 'set-password', '--email', 'pw@example.com', '--password-stdin');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ account_id: expect.any(Number), email: 'pw@example.com', password_set: true });
    await expect(signIn.authenticate(before.secret)).resolves.toBeNull();
    await expect(signIn.signIn('pw@example.com', 'a long passphrase')).rejects.toThrow(/incorrect/);
    await expect(signIn.signIn('pw@example.com', 'another passphrase')).resolves.toBeDefined();
  });

  it.each([
    ['too short', 'short', ['account', 'set-password', '--email', 'pw@example.com', '--password-stdin'], /at least 10 characters/],
    ['empty input', '', ['account', 'set-password', '--email', 'pw@example.com', '--password-stdin'], /no password on standard input/],
    ['no --password-stdin', 'whatever long', ['account', 'set-password', '--email', 'pw@example.com'], /--password-stdin is required/],
    ['unknown account', 'long enough pw', ['account', 'set-password', '--email', 'nobody@example.com', '--password-stdin'], /not found/i],
    ['a password as an argument', '', ['account', 'set-password', '--email', 'pw@example.com', '--password', 'secret123456'], /unknown option --password/],
  ])('set-password with %s → one line on stderr, exit 2', async (_, input, args, message) => {
    const res = await cliWithInput(input, ...args);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(message);
  });

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
    await cli('account', 'update', '--email', 'up@example.com', '--status', 'expired');
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
  describe('which database it opens (DATA_DIR / DATABASE_URL)', () => {
    /** How the CLI names a database: the SQLite file, or the PostgreSQL URL with its password masked. */
    const whereOf = (db: TestDatabase) => (db.databaseUrl ? redactDatabaseUrl(db.databaseUrl) : join(db.dataDir, 'app.db'));
    const envOf = (db: TestDatabase) => ({ ...process.env, DATA_DIR: db.dataDir, DATABASE_URL: db.databaseUrl ?? '', LOG_LEVEL: 'silent' });
    /** Whether the service's tables are there: the SQLite file, or TypeORM's migrations table on PostgreSQL. */
    const hasDatabase = async (db: TestDatabase) => {
      if (!db.databaseUrl) return existsSync(join(db.dataDir, 'app.db'));
      const client = new Client({ connectionString: db.databaseUrl });
      await client.connect();
      try {
        return (await client.query(`SELECT to_regclass('migrations') IS NOT NULL AS migrated`)).rows[0].migrated as boolean;
      } finally {
        await client.end();
      }
    };

    it("README order (the server running, then account create): stderr names the server's database, nothing is created", async () => {
      const res = await cli('account', 'create', '--email', 'readme@example.com', '--name', 'Readme', '--plan', 'pro');
      expect(res.code).toBe(0);
      expect(res.stderr).toBe(`database: ${whereOf(t.database)}\n`);
      const listed = await cli('token', 'list', '--email', 'readme@example.com');
      expect(listed.stderr).toBe(`database: ${whereOf(t.database)}\n`);
      // An account missing from the database it opened: the one line says which database that was.
      const missing = await cli('token', 'list', '--email', 'nobody@example.com');
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      expect(missing.stderr).toContain(`not found`);
      expect(missing.stderr).toContain(`(database: ${whereOf(t.database)})`);
    });

    it.each([
      [['token', 'list', '--email', 'ops@example.com']],
      [['token', 'create', '--email', 'ops@example.com']],
      [['account', 'update', '--email', 'ops@example.com', '--plan', 'free']],
      [['token', 'revoke', '--id', '1']],
    ])('refuses %j on a DATA_DIR / DATABASE_URL without a database: one line with the hint, exit 2, nothing created', async (args) => {
      const fresh = await createTestDatabase();
      try {
        const res = await cliIn(envOf(fresh), ...args);
        expect(res.code).toBe(2);
        expect(res.stdout).toBe('');
        expect(res.stderr.trim().split('\n')).toHaveLength(1);
        expect(res.stderr).toMatch(fresh.databaseUrl ? /has none of the service's tables/ : /no database in DATA_DIR/);
        expect(res.stderr).toContain(whereOf(fresh));
        expect(res.stderr).toMatch(/the server's (DATA_DIR|DATABASE_URL).*--create/);
        expect(await hasDatabase(fresh)).toBe(false);
      } finally {
        await fresh.drop();
      }
    });

    it('account create on a fresh machine makes the database and says so; the server started on it accepts the token', async () => {
      const fresh = await createTestDatabase();
      let server: TestApp | null = null;
      try {
        const res = await cliIn(envOf(fresh), 'account', 'create', '--email', 'first@example.com', '--name', 'First', '--plan', 'pro');
        expect(res.code).toBe(0);
        expect(res.stderr.startsWith(`database: ${whereOf(fresh)} (new: created by this command;`)).toBe(true);
        const { token } = JSON.parse(res.stdout) as { token: string };
        server = await startTestApp({ database: fresh });
        await request(server.url).get('/test').set('Authorization', `Bearer ${token}`).expect(200);
        // Now it exists: other commands open it without --create, and no longer say "created".
        const listed = await cliIn(envOf(fresh), 'token', 'list', '--email', 'first@example.com');
        expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: `database: ${whereOf(fresh)}\n` });
      } finally {
        await server?.close();
        await fresh.drop();
      }
    });

    it('--create lets any command make the database; on SQLite a command that then fails leaves no file behind', async () => {
      const fresh = await createTestDatabase();
      try {
        const res = await cliIn(envOf(fresh), 'token', 'list', '--email', 'nobody@example.com', '--create');
        expect(res.code).toBe(2);
        expect(res.stderr).toMatch(/not found/i);
        expect(res.stderr).toContain(`(database: ${whereOf(fresh)})`);
        // PostgreSQL keeps the tables its migrations made (harmless, and the next run finds them); SQLite drops the file.
        expect(await hasDatabase(fresh)).toBe(Boolean(fresh.databaseUrl));
        const made = await cliIn(envOf(fresh), 'account', 'create', '--email', 'c@example.com', '--name', 'C', '--plan', 'pro', '--create');
        expect(made.code).toBe(0);
        const tokens = await cliIn(envOf(fresh), 'token', 'create', '--email', 'c@example.com', '--create');
        expect({ code: tokens.code, stderr: tokens.stderr }).toEqual({ code: 0, stderr: `database: ${whereOf(fresh)}\n` });
      } finally {
        await fresh.drop();
      }
    });

    it('a DATABASE_URL with a password is printed with the password masked', async () => {
      if (!t.database.databaseUrl) {
        // The embedded run prints a path, no URL (redactDatabaseUrl has its unit spec); the PostgreSQL run checks this.
        expect((await cli('token', 'list', '--email', 'ops@example.com')).stderr).toBe(`database: ${join(t.database.dataDir, 'app.db')}\n`);
        return;
      }
      const url = new URL(t.database.databaseUrl);
      url.password = 'hunter2-secret';
      const res = await cliIn({ ...env, DATABASE_URL: url.toString() }, 'token', 'list', '--email', 'ops@example.com');
      expect(res.code).toBe(0);
      expect(res.stderr).not.toContain('hunter2-secret');
      expect(res.stderr).toBe(`database: ${url.toString().replace('hunter2-secret', '****')}\n`);
    });
  });
});
