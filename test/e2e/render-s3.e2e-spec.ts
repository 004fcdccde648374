import request from 'supertest';
import { RenderSweeper } from '../../src/modules/renders/application/render-sweeper';
import { OrphanSweeper } from '../../src/modules/screenshots/application/orphan-sweeper';
import { binary } from '../support/assertions';
import { decodeImage } from '../support/images';
import { PageServer, solidPage } from '../support/page-server';
import { S3Server } from '../support/s3-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Renders with STORAGE_DRIVER=s3 (docs/render.md): the object lives under S3_PREFIX + `renders/<account>/<id>.<ext>`,
 * a hit is streamed from there, the orphan sweep of the screenshots area leaves it alone, and the render sweep
 * deletes it at expiry. Real Chromium, a real s3rver process; both stacks (SQLite, PostgreSQL + Redis).
 */
describe('Renders in S3-compatible storage (s3rver, real Chromium)', () => {
  const s3 = new S3Server('e2e-renders');
  const PREFIX = 'deploy-r/';
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;

  beforeAll(async () => {
    await s3.start();
    pages = await new PageServer({ '/': solidPage('rgb(0,0,255)') }).start();
    t = await startTestApp({ env: s3.env(PREFIX) });
    account = await t.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    await t?.close();
    await pages?.stop();
    await s3.dispose();
  });

  it('stores the object under the renders area, serves a hit from it, and the sweep deletes it at expiry', async () => {
    const render = () =>
      request(t.url)
        .get('/render')
        .query({ url: `${pages.url}/`, cache_ttl: '60', viewport_width: '400', viewport_height: '300' })
        .set(account.auth)
        .buffer(true)
        .parse(binary);
    const miss = await render();
    expect(miss.status).toBe(200);
    const key = `${PREFIX}renders/${account.id}/${miss.headers['x-render-id']}.png`;
    expect(await s3.keys(PREFIX)).toEqual([key]);
    const hit = await render();
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(await decodeImage(hit.body)).toMatchObject({ width: 400, height: 300 });

    // The screenshots' orphan sweep reads only its own area: a render has no screenshot row and is not an orphan.
    await t.app.get(OrphanSweeper).sweep(new Date(Date.now() + 86_400_000));
    expect(await s3.keys(PREFIX)).toEqual([key]);

    t.clock.advance(200_000);
    expect(await t.app.get(RenderSweeper).sweep()).toBe(1);
    expect(await s3.keys(PREFIX)).toEqual([]);
  });
});
