import { ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { BullJobTransport } from './bull-job-transport';
import { Delivery } from '../../modules/jobs/application/job-transport';
import { freePort, startRedis, stopRedis } from '../../../test/support/redis-server';

/**
 * Bull on a real redis-server of this spec's own (restarted, its clients cut): what a worker that shuts down
 * hands back, and how a process tells a Redis that came back empty from one that only dropped its connections.
 */
describe('BullJobTransport', () => {
  let port: number;
  let redis: ChildProcess | null = null;
  const transports: BullJobTransport[] = [];

  function transport(): BullJobTransport {
    // The lock at its default: a delivery seen again within a second was handed back, not left to expire.
    const created = new BullJobTransport({ redisUrl: `redis://127.0.0.1:${port}`, keyPrefix: prefix, lockDurationMs: 30_000 });
    transports.push(created);
    return created;
  }
  let prefix: string;

  async function until(condition: () => boolean, what: string, ms = 5_000): Promise<number> {
    const started = Date.now();
    while (!condition()) {
      if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return Date.now() - started;
  }

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    prefix = `sss-test-${randomBytes(6).toString('hex')}`;
    port = await freePort();
    redis = await startRedis(port);
  });
  afterEach(async () => {
    await Promise.all(transports.splice(0).map((t) => t.close()));
    if (redis) await stopRedis(redis);
    jest.restoreAllMocks();
  });

  it('a worker that stops hands the delivery it still runs back: another worker gets it at once, marked as let go', async () => {
    const stopping = transport();
    const seen: { by: string; jobId: string; delivery: Delivery }[] = [];
    stopping.consume(async (jobId, delivery) => {
      seen.push({ by: 'stopping', jobId, delivery });
      await new Promise(() => undefined); // cut off: never ends
    }, 1);
    await stopping.enqueue('job-1');
    await until(() => seen.length === 1, 'the first delivery');

    const taker = transport();
    taker.consume(async (jobId, delivery) => void seen.push({ by: 'taker', jobId, delivery }), 1);
    await new Promise((r) => setTimeout(r, 300));
    await stopping.stopTaking();
    expect(await stopping.handBack()).toBe(1);
    const handedBackIn = await until(() => seen.length === 2, 'the handed-back delivery', 2_000);
    expect(seen).toEqual([
      { by: 'stopping', jobId: 'job-1', delivery: { redelivered: false, priority: 'batch' } },
      { by: 'taker', jobId: 'job-1', delivery: { redelivered: true, priority: 'batch' } },
    ]);
    expect(handedBackIn).toBeLessThan(1_000);
    // The delivery is the taker's now (and done): handing it back again moves nothing.
    expect(await stopping.handBack()).toBe(0);
  });

  it('tells the handler the priority a delivery was enqueued with, so a retry can keep it', async () => {
    const worker = transport();
    const seen: [string, Delivery['priority']][] = [];
    worker.consume(async (jobId, delivery) => void seen.push([jobId, delivery.priority]), 1);
    await worker.enqueue('render-1', { priority: 'interactive', accountId: 7 });
    await worker.enqueue('batch-1', { accountId: 7 });
    await until(() => seen.length === 2, 'both deliveries');
    expect(seen.sort()).toEqual([
      ['batch-1', 'batch'],
      ['render-1', 'interactive'],
    ]);
  });

  it('reports lost deliveries when Redis comes back empty, not when only its connections were cut', async () => {
    const t = transport();
    let lost = 0;
    t.onDeliveriesLost(() => (lost += 1));
    await t.enqueue('job-1');
    await new Promise((r) => setTimeout(r, 300)); // the first connection's epoch is read

    execFileSync('redis-cli', ['-p', String(port), 'CLIENT', 'KILL', 'TYPE', 'normal']);
    await t.enqueue('job-2'); // through the reconnection, which found its data
    await new Promise((r) => setTimeout(r, 500));
    expect(lost).toBe(0);

    await stopRedis(redis!);
    redis = await startRedis(port);
    const noticedIn = await until(() => lost === 1, 'the lost deliveries to be reported', 3_000);
    expect(noticedIn).toBeLessThan(2_000);
  });
});
