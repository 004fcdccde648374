/**
 * `npm run bench:fair-slots-redis`: what the cap of slots costs Redis, two designs side by
 * side (docs/fair-slots.md, "Why this design"). Account A queues 60 jobs of 200 ms, its cap is 4, two workers of 3
 * slots each share one queue on the local Redis. Parking (BullJobTransport): a delivery at the cap is parked on the
 * account until one of its slots is given back. Deferring: it is queued again with a delay (250 ms) and taken again.
 * Counted on a redis-server of its own: commands run (INFO commandstats, those inside scripts included) and the
 * time to drain the 60.
 */
import { randomBytes } from 'node:crypto';
import Queue from 'bull';
import Redis from 'ioredis';
import { BullJobTransport } from '../src/adapters/queue/bull-job-transport';
import { freePort, startRedis, stopRedis } from '../test/support/redis-server';

let REDIS = '';
const JOBS = 60;
const CAP = 4;
const JOB_MS = 200;
const DEFER_MS = 250;

async function commands(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

async function parking(): Promise<number> {
  const prefix = `sss-bench-${randomBytes(4).toString('hex')}`;
  const workers = [0, 1].map(() => new BullJobTransport({ redisUrl: REDIS, keyPrefix: prefix, lockDurationMs: 30_000, slotCaps: async () => CAP }));
  let done = 0;
  for (const w of workers) w.consume(async () => void (await new Promise((r) => setTimeout(r, JOB_MS)), (done += 1)), 3);
  for (let i = 0; i < JOBS; i++) await workers[0].enqueue(`job-${i}`, { accountId: 1 });
  while (done < JOBS) await new Promise((r) => setTimeout(r, 20));
  await Promise.all(workers.map((w) => w.close()));
  return done;
}

async function deferring(): Promise<number> {
  const prefix = `sss-bench-${randomBytes(4).toString('hex')}`;
  const counter = new Redis(REDIS);
  const queues = [0, 1].map(() => new Queue<{ jobId: string }>('capture-jobs', REDIS, { prefix, defaultJobOptions: { removeOnComplete: true } }));
  let done = 0;
  let retries = 0;
  const key = `${prefix}:running:1`;
  for (const q of queues) {
    void q.process(3, async (job) => {
      if ((await counter.incr(key)) > CAP) {
        await counter.decr(key);
        retries += 1;
        await q.add({ jobId: job.data.jobId }, { delay: DEFER_MS });
        return;
      }
      try {
        await new Promise((r) => setTimeout(r, JOB_MS));
        done += 1;
      } finally {
        await counter.decr(key);
      }
    });
  }
  for (let i = 0; i < JOBS; i++) await queues[0].add({ jobId: `job-${i}` });
  while (done < JOBS) await new Promise((r) => setTimeout(r, 20));
  await Promise.all(queues.map((q) => q.close()));
  counter.disconnect();
  return retries;
}

void (async () => {
  const port = await freePort();
  const server = await startRedis(port);
  REDIS = `redis://127.0.0.1:${port}`;
  const redis = new Redis(REDIS);
  for (const [name, run] of [
    ['parking (chosen)', parking],
    ['deferring 250 ms', deferring],
  ] as const) {
    const before = await commands(redis);
    const started = Date.now();
    const extra = await run();
    const ms = Date.now() - started;
    const used = (await commands(redis)) - before;
    process.stdout.write(
      `${name.padEnd(18)} drained ${JOBS} in ${ms} ms (floor ${(JOBS / CAP) * JOB_MS} ms), ${used} Redis commands (${(used / JOBS).toFixed(0)} per job)${name.startsWith('defer') ? `, ${extra} deferrals` : ''}\n`,
    );
  }
  redis.disconnect();
  await stopRedis(server);
  process.exit(0);
})();
