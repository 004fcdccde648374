import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { RetentionSweeper } from '../../src/modules/screenshots/application/retention-sweeper';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { usingPostgres } from '../support/test-database';

/** RETENTION_DAYS (issue 18): old screenshots go — row, file, thumbnail — and the sweep is safe on every instance at once. */
describe('Retention (RETENTION_DAYS=7)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let websiteId: number;
  const api = () => request(t.url);
  const DAY = 24 * 3600 * 1000;

  beforeAll(async () => {
    pages = await new PageServer({ '/': solidPage('rgb(0,0,255)') }).start();
    t = await startTestApp({ env: { RETENTION_DAYS: '7' } });
    t.clock.set('2031-03-01T10:00:00Z');
    account = await t.createAccount({ plan: 'business' });
    websiteId = (
      await api()
        .post('/websites')
        .set(account.auth)
        .send({ name: 'kept a week', url: `${pages.url}/` })
        .expect(201)
    ).body.data.id;
  });

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });

  async function capture(): Promise<{ id: number; file_path: string }> {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send({}).expect(200);
    const job = await waitForJob(t.url, account.auth, take.body.job_id);
    expect(job.status).toBe('succeeded');
    return (await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200)).body.data;
  }

  const fileOf = (filePath: string) => join(t.config.storageDir, filePath.replace(/^screenshots\//, ''));

  it('deletes screenshots older than the retention with their files and thumbnails; keeps the rest; twice at once is fine', async () => {
    const old = [await capture(), await capture()];
    await api().get(`/screenshots/${old[0].id}/thumbnail`).set(account.auth).expect(200);
    t.clock.advance(6 * DAY);
    const recent = await capture();
    t.clock.advance(2 * DAY); // the old ones are now 8 days old, the recent one 2

    const second = usingPostgres() ? await startTestApp({ env: { RETENTION_DAYS: '7' }, database: t.database, redisKeyPrefix: t.config.redisKeyPrefix }) : null;
    try {
      second?.clock.set(t.clock.now());
      const sweepers = [t.app.get(RetentionSweeper), ...(second ? [second.app.get(RetentionSweeper)] : [])];
      const removed = await Promise.all(sweepers.map((s) => s.sweep()));
      expect(removed.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
    } finally {
      await second?.close();
    }

    for (const shot of old) {
      await api().get(`/screenshots/${shot.id}`).set(account.auth).expect(404);
      expect(existsSync(fileOf(shot.file_path))).toBe(false);
      expect(existsSync(fileOf(shot.file_path).replace(/\.png$/, '.thumb.webp'))).toBe(false);
    }
    await api().get(`/screenshots/${recent.id}/download`).set(account.auth).expect(200);
    expect(existsSync(fileOf(recent.file_path))).toBe(true);
    expect(await t.app.get(RetentionSweeper).sweep()).toBe(0);
  });
});
