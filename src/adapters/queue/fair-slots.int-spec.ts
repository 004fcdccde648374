import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { BullJobTransport } from './bull-job-transport';
import { InProcessJobTransport } from './in-process-job-transport';
import { JobTransport } from '../../modules/jobs/application/job-transport';
import { freePort, startRedis, stopRedis } from '../../../test/support/redis-server';

/**
 * docs/fair-slots.md, the same rules on both transports: a waiting client's (interactive) delivery goes first,
 * batch deliveries are served round-robin across accounts, and no account runs more than its cap at once —
 * with Bull across two workers sharing one real redis-server.
 */
const CAPS: Record<number, number> = { 1: 2, 2: 2, 3: 10, 4: 4, 5: 4 };
const slotCaps = async (accountId: number) => CAPS[accountId] ?? 1;

interface Mode {
  name: string;
  /** `workers` consumers of the same queue (in-process: one, it has no other process). */
  workers(n: number): JobTransport[];
}

describe.each(['in-process', 'bull'])('fair slots (%s)', (kind) => {
  let redis: ChildProcess | null = null;
  let port = 0;
  let prefix = '';
  const made: JobTransport[] = [];
  let mode: Mode;

  beforeAll(async () => {
    if (kind === 'bull') {
      port = await freePort();
      redis = await startRedis(port);
    }
  });
  afterAll(async () => {
    if (redis) await stopRedis(redis);
  });
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    prefix = `sss-fair-${randomBytes(6).toString('hex')}`;
    mode = {
      name: kind,
      workers: (n) => {
        const count = kind === 'bull' ? n : 1;
        const list = Array.from({ length: count }, () =>
          kind === 'bull'
            ? new BullJobTransport({ redisUrl: `redis://127.0.0.1:${port}`, keyPrefix: prefix, lockDurationMs: 30_000, slotCaps })
            : new InProcessJobTransport(slotCaps),
        );
        made.push(...list);
        return list;
      },
    };
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((t) => t.close()));
    jest.restoreAllMocks();
  });

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
    const started = Date.now();
    while (!condition()) {
      if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
      await sleep(10);
    }
  }

  it('accounts with backlogs are served in turn, one delivery each (round-robin), whoever queued first', async () => {
    const [worker] = mode.workers(1);
    for (let i = 1; i <= 6; i++) await worker.enqueue(`a${i}`, { accountId: 1 });
    for (let i = 1; i <= 6; i++) await worker.enqueue(`b${i}`, { accountId: 2 });
    const order: string[] = [];
    worker.consume(async (jobId) => void order.push(jobId), 1);
    await until(() => order.length === 12, 'every delivery');
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4', 'b4', 'a5', 'b5', 'a6', 'b6']);
  });

  it("a backlog queued behind another's running one gets its half of the starts at once, across workers", async () => {
    // fair-slots.e2e's scene at the transport's speed: 6 slots on two workers, caps of 4, C's backlog of 40 starts
    // (4 run, the other slots park the rest), then D's 16 are queued. Round-robin gives D about half of the starts
    // that follow; D only having the two slots C cannot use is a third.
    const workers = mode.workers(2);
    const starts: string[] = [];
    let done = 0;
    for (const worker of workers) {
      worker.consume(
        async (jobId) => {
          starts.push(jobId);
          await sleep(40);
          done += 1;
        },
        kind === 'bull' ? 3 : 6,
      );
    }
    for (let i = 0; i < 40; i++) await workers[i % workers.length].enqueue(`C${i}`, { accountId: 4 });
    await until(() => starts.length >= 4, "C's first captures");
    for (let i = 0; i < 16; i++) await workers[i % workers.length].enqueue(`D${i}`, { accountId: 5 });
    await until(() => done === 56, 'every delivery', 20_000);
    const order = starts.map((id) => id[0]).join('');
    // From D's first start on: the 16 starts that follow hold about 8 of D's (round-robin) — not 5 or 6 (a third).
    const firstD = order.indexOf('D');
    const window = order.slice(firstD, firstD + 16);
    expect({ order, d: [...window].filter((a) => a === 'D').length >= 7 }).toEqual({ order, d: true });
  });

  it("an interactive delivery goes before every batch one, even behind another account's backlog of 60", async () => {
    const [worker] = mode.workers(1);
    for (let i = 1; i <= 60; i++) await worker.enqueue(`a${i}`, { accountId: 3 });
    await worker.enqueue('b-waited', { accountId: 2, key: 'interactive', priority: 'interactive' });
    const order: string[] = [];
    worker.consume(async (jobId) => void order.push(jobId), 1);
    await until(() => order.length === 61, 'every delivery');
    expect(order[0]).toBe('b-waited');
  });

  it('no account runs more deliveries at once than its cap, across workers, and every delivery still runs', async () => {
    const workers = mode.workers(2);
    const running = new Map<number, number>();
    const most = new Map<number, number>();
    let done = 0;
    const account = (jobId: string) => Number(jobId.split('-')[0]);
    for (const worker of workers) {
      worker.consume(async (jobId) => {
        const a = account(jobId);
        running.set(a, (running.get(a) ?? 0) + 1);
        most.set(a, Math.max(most.get(a) ?? 0, running.get(a) as number));
        await sleep(60);
        running.set(a, (running.get(a) as number) - 1);
        done += 1;
      }, 4);
    }
    for (let i = 0; i < 12; i++) await workers[i % workers.length].enqueue(`1-${i}`, { accountId: 1 });
    for (let i = 0; i < 12; i++) await workers[i % workers.length].enqueue(`3-${i}`, { accountId: 3 });
    await until(() => done === 24, 'every delivery');
    expect(most.get(1)).toBe(CAPS[1]);
    // Account 3 may use the slots account 1 cannot: more than 1's cap, within its own.
    expect(most.get(3)).toBeGreaterThan(CAPS[1]);
    expect(most.get(3)).toBeLessThanOrEqual(CAPS[3]);
  });
});

describe('fair slots (bull): a parked job is parked once, however often the sweep queues it again', () => {
  let redis: ChildProcess;
  let port = 0;
  let transport: BullJobTransport;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
  });
  afterAll(async () => {
    await transport?.close();
    await stopRedis(redis);
  });

  it('each parked job runs once after its account frees a slot, not once per copy the sweep handed over', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const prefix = `sss-fair-${randomBytes(6).toString('hex')}`;
    transport = new BullJobTransport({ redisUrl: `redis://127.0.0.1:${port}`, keyPrefix: prefix, lockDurationMs: 30_000, slotCaps });
    const runs = new Map<string, number>();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    transport.consume(async (jobId) => {
      runs.set(jobId, (runs.get(jobId) ?? 0) + 1);
      if (jobId.startsWith('first')) await held;
    }, 4);
    // Account 1's cap is 2: two jobs hold its slots, four are parked.
    for (const jobId of ['first-a', 'first-b', 'p-1', 'p-2', 'p-3', 'p-4']) await transport.enqueue(jobId, { accountId: 1 });
    const waitFor = async (condition: () => boolean, what: string) => {
      for (const started = Date.now(); !condition(); await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`);
      }
    };
    await waitFor(() => runs.get('first-a') === 1 && runs.get('first-b') === 1, 'the two slots taken');
    // The sweep hands every still-queued job to the queue again (three sweeps' worth), each copy parked again.
    for (let sweep = 0; sweep < 3; sweep++) {
      for (const jobId of ['p-1', 'p-2', 'p-3', 'p-4']) await transport.enqueue(jobId, { accountId: 1 });
      await new Promise((r) => setTimeout(r, 200));
    }
    release();
    await waitFor(() => ['p-1', 'p-2', 'p-3', 'p-4'].every((id) => runs.has(id)), 'every parked job run');
    await new Promise((r) => setTimeout(r, 500));
    expect(Object.fromEntries(runs)).toEqual({ 'first-a': 1, 'first-b': 1, 'p-1': 1, 'p-2': 1, 'p-3': 1, 'p-4': 1 });
    jest.restoreAllMocks();
  });
});
