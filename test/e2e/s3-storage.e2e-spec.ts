import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { OrphanSweeper } from '../../src/modules/screenshots/application/orphan-sweeper';
import { within } from '../../src/shared/domain/within';
import AdmZip from 'adm-zip';
import request from 'supertest';
import { binary } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { S3Server } from '../support/s3-server';
import { startServiceProcess } from '../support/service-process';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-database';

/**
 * STORAGE_DRIVER=s3 end to end (issue 18): real Chromium captures stored as objects in a real S3-protocol server
 * process (s3rver), downloaded, zipped, thumbnailed and deleted from there, with nothing written to local disk.
 * Runs on both stacks (SQLite, and PostgreSQL + Redis in CI's second run).
 */

/** Every file under a directory, recursively (an absent directory has none). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('Screenshots in S3-compatible storage (s3rver, real Chromium)', () => {
  const s3 = new S3Server('e2e-shots');
  const PREFIX = 'deploy-1/';
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let websiteId: number;
  const api = () => request(t.url);

  beforeAll(async () => {
    await s3.start();
    pages = await new PageServer({ '/': solidPage('rgb(0,128,0)') }).start();
    t = await startTestApp({ env: s3.env(PREFIX) });
    account = await t.createAccount({ plan: 'pro' });
    const site = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'S3 site', url: `${pages.url}/` });
    expect(site.status).toBe(201);
    websiteId = site.body.data.id;
  });

  // Each test in a fresh rate-limit minute: captures poll their job.
  beforeEach(() => t.clock.advance(60_000));

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
    await s3.dispose();
  });

  async function capture(body: Record<string, unknown> = {}) {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(take.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, take.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    return (await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200)).body.data as {
      id: number;
      file_path: string;
      file_size: number;
    };
  }

  it('a capture is an object whose key is S3_PREFIX + file_path, and nothing is written to local disk', async () => {
    const shot = await capture();
    expect(shot.file_path).toBe(`screenshots/${account.id}/${websiteId}/${shot.id}.png`);
    expect(await s3.keys(PREFIX)).toContain(`${PREFIX}${shot.file_path}`);
    // Local disk: the database file is the only thing in the data dir (SQLite) — no screenshot, thumbnail or
    // staging part, and STORAGE_DIR is never even created.
    expect(existsSync(t.config.storageDir)).toBe(false);
    const local = filesUnder(t.config.dataDir).filter((f) => !/app\.db(-wal|-shm|-journal)?$|secrets\.key$/.test(f));
    expect(local).toEqual([]);
  });

  it('download streams the object; the thumbnail is made from it and stored beside it in the bucket', async () => {
    const shot = await capture();
    const file = await api().get(`/screenshots/${shot.id}/download`).set(account.auth).buffer(true).parse(binary).expect(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect((file.body as Buffer).length).toBe(shot.file_size);
    expect((file.body as Buffer).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const thumb = await api().get(`/screenshots/${shot.id}/thumbnail`).set(account.auth).buffer(true).parse(binary);
    expect(thumb.status).toBe(200);
    expect(await s3.keys(PREFIX)).toContain(`${PREFIX}screenshots/${account.id}/${websiteId}/${shot.id}.thumb.webp`);
    expect(filesUnder(t.config.dataDir).filter((f) => /\.(png|webp|jpe?g|pdf|part)$/.test(f))).toEqual([]);
  });

  it('bulk download zips the objects, byte-identical to their downloads', async () => {
    const shots = [await capture(), await capture({ format: 'jpeg' })];
    const res = await api()
      .post('/screenshots/download-bulk')
      .set(account.auth)
      .send({ screenshot_ids: shots.map((s) => s.id) })
      .buffer(true)
      .parse(binary);
    expect(res.status).toBe(200);
    const zip = new AdmZip(res.body as Buffer);
    expect(zip.getEntries()).toHaveLength(2);
    for (const shot of shots) {
      const entry = zip.getEntries().find((e) => e.entryName.startsWith(`${shot.id}-`))!;
      const download = await api().get(`/screenshots/${shot.id}/download`).set(account.auth).buffer(true).parse(binary).expect(200);
      expect(entry.getData().equals(download.body as Buffer)).toBe(true);
    }
  });

  it('DELETE removes the row, the object and its thumbnail; deleting the website removes all its objects', async () => {
    const shot = await capture();
    await api().get(`/screenshots/${shot.id}/thumbnail`).set(account.auth).expect(200);
    await api().delete(`/screenshots/${shot.id}`).set(account.auth).expect(200);
    const keys = await s3.keys(PREFIX);
    expect(keys.filter((k) => k.includes(`/${shot.id}.`))).toEqual([]);
    await api().get(`/screenshots/${shot.id}`).set(account.auth).expect(404);

    expect(keys.some((k) => k.startsWith(`${PREFIX}screenshots/${account.id}/${websiteId}/`))).toBe(true);
    await api().delete(`/websites/${websiteId}`).set(account.auth).expect(200);
    expect((await s3.keys(`${PREFIX}screenshots/${account.id}/${websiteId}/`)).length).toBe(0);
  });

  it('storage down: a download answers 503 unavailable with the error body (never a 500), and works again once it is back', async () => {
    const site = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'S3 site 2', url: `${pages.url}/` });
    websiteId = site.body.data.id;
    const shot = await capture();
    await s3.stop();
    try {
      const res = await api().get(`/screenshots/${shot.id}/download`).set(account.auth);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: 'Screenshot storage is unavailable; try again', code: 'unavailable' });
    } finally {
      await s3.start();
    }
    await api().get(`/screenshots/${shot.id}/download`).set(account.auth).expect(200);
  });
});

/**
 * The worst moment for a crash: the object is in the bucket, the row not yet committed. A proxy in front of the S3
 * server lets the screenshot's PUT reach it, and SIGKILLs the service before the answer gets back — so the
 * process dies between upload and commit, for real. What must hold: no screenshot row without its object; after
 * the restart the job completes, and the killed attempt's object is at most an orphan (never referenced).
 */
describe('S3: a worker killed between upload and commit', () => {
  it('leaves no row without an object; after the restart the job completes with exactly one row, whose object exists', async () => {
    const s3 = await new S3Server('kill-shots').start();
    const db = await createTestDatabase({ engine: 'sqlite' });
    const pages = await new PageServer({ '/': solidPage('rgb(200,0,0)') }).start();
    let killService: (() => Promise<void>) | null = null;
    let killedAfterUpload: string | null = null;
    const proxy: Server = createServer((req, res) => {
      const upstream = httpRequest({ host: '127.0.0.1', port: s3.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        if (req.method === 'PUT' && /\/screenshots\/\d+\/\d+\/\d+\.png$/.test((req.url ?? '').split('?')[0]) && killedAfterUpload === null) {
          killedAfterUpload = (req.url ?? '').split('?')[0];
          answer.resume();
          answer.on('end', () => void killService!().then(() => res.destroy()));
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const viaProxy = { ...s3.env(), S3_ENDPOINT: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
    const env = { DATA_DIR: db.dataDir, DATABASE_URL: '', REDIS_URL: '', ALLOW_PRIVATE_NETWORKS: 'true', ...viaProxy };
    const cli = join(__dirname, '..', '..', 'dist', 'cli.js');
    const { stdout } = await promisify(execFile)('node', [cli, 'account', 'create', '--email', 'kill@example.com', '--name', 'K', '--plan', 'business'], {
      env: { ...process.env, ...env },
    });
    const auth = { Authorization: `Bearer ${(JSON.parse(stdout) as { token: string }).token}` };
    const first = await startServiceProcess(env);
    killService = () => first.crash();
    let second: TestApp | null = null;
    try {
      const site = await request(first.url)
        .post('/websites')
        .set(auth)
        .send({ name: 'Killed', url: `${pages.url}/` })
        .expect(201);
      const jobId = (await request(first.url).post(`/websites/${site.body.data.id}/screenshot`).set(auth).send({}).expect(200)).body.job_id as string;
      await within(once(first.child, 'exit'), 30_000, () => new Error('the service was not killed after its upload'));
      expect(killedAfterUpload).not.toBeNull(); // it died right after its upload, before any commit

      second = await startTestApp({ database: db, env: { ...s3.env(), DATABASE_URL: '', REDIS_URL: '' } });
      const rowsAfterCrash: Array<{ file_path: string }> = await second.app.get(DataSource).query('SELECT file_path FROM screenshots');
      const job = await waitForJob(second.url, auth, jobId, 60_000);
      expect(job.status).toBe('succeeded');
      const rows: Array<{ id: number; file_path: string }> = await second.app.get(DataSource).query('SELECT id, file_path FROM screenshots');
      expect(rows).toHaveLength(1);
      expect(rows[0].id).toBe(job.screenshot_id);
      const objects = await s3.keys();
      for (const row of [...rowsAfterCrash, ...rows]) expect(objects).toContain(row.file_path);
      // The killed attempt's upload stays as an unreferenced object under its own (skipped) id, never a row's.
      const orphan = decodeURIComponent(killedAfterUpload!).replace(/^\/kill-shots\//, '');
      expect(objects).toContain(orphan);
      expect(rows[0].file_path).not.toBe(orphan);
      // The orphan sweep (daily, for files over an hour old; here for any age) removes it, and only it.
      expect(await second.app.get(OrphanSweeper).sweep(new Date(Date.now() + 1_000))).toBe(1);
      expect(await s3.keys()).toEqual(objects.filter((key) => key !== orphan));
    } finally {
      await first.stop();
      await second?.close();
      proxy.closeAllConnections();
      proxy.close();
      await pages.stop();
      await s3.dispose();
      await db.drop();
    }
  });
});
