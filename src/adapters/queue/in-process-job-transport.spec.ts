import { InProcessJobTransport } from './in-process-job-transport';
import { Delivery } from '../../modules/jobs/application/job-transport';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('InProcessJobTransport', () => {
  let transport: InProcessJobTransport;
  let delivered: { jobId: string; delivery: Delivery }[];
  let gate: ReturnType<typeof deferred>;

  beforeEach(() => {
    transport = new InProcessJobTransport();
    delivered = [];
    gate = deferred();
  });
  afterEach(async () => {
    gate.resolve();
    await transport.close();
  });

  /** One job at a time, each held until the gate opens, so what waits behind it can be observed. */
  function consumeHeld(): void {
    transport.consume(async (jobId, delivery) => {
      delivered.push({ jobId, delivery });
      await gate.promise;
    }, 1);
  }

  const settle = () => new Promise((r) => setImmediate(r));

  it('a job enqueued again while it still waits is carried once (the sweep re-enqueues whatever it finds)', async () => {
    consumeHeld();
    await transport.enqueue('busy');
    for (let i = 0; i < 3; i++) await transport.enqueue('waiting');
    gate.resolve();
    await settle();
    expect(delivered.map((d) => d.jobId)).toEqual(['busy', 'waiting']);
  });

  it('a delivery with a key of its own is not merged with the plain one', async () => {
    consumeHeld();
    await transport.enqueue('busy');
    await transport.enqueue('j');
    await transport.enqueue('j', { key: 'expired:1' });
    await transport.enqueue('j', { key: 'expired:1' });
    gate.resolve();
    await settle();
    expect(delivered.map((d) => d.jobId)).toEqual(['busy', 'j', 'j']);
  });

  it('a job already handed to the handler can be enqueued again, and nothing it delivers is a redelivery', async () => {
    consumeHeld();
    await transport.enqueue('j');
    await settle();
    await transport.enqueue('j');
    gate.resolve();
    await settle();
    expect(delivered).toEqual([
      { jobId: 'j', delivery: { redelivered: false, priority: 'batch' } },
      { jobId: 'j', delivery: { redelivered: false, priority: 'batch' } },
    ]);
  });

  it('tells the handler the priority each delivery was enqueued with (a retry keeps it)', async () => {
    consumeHeld();
    await transport.enqueue('busy');
    await transport.enqueue('render', { priority: 'interactive', accountId: 1 });
    await transport.enqueue('batch', { accountId: 1 });
    gate.resolve();
    await settle();
    expect(delivered.map((d) => [d.jobId, d.delivery.priority])).toEqual([
      ['busy', 'batch'],
      ['render', 'interactive'],
      ['batch', 'batch'],
    ]);
  });

  it('a job promoted while its batch delivery waits is delivered once, as interactive, and its account keeps its turn', async () => {
    consumeHeld();
    await transport.enqueue('busy');
    await transport.enqueue('a1', { accountId: 1 });
    await transport.enqueue('a2', { accountId: 1 });
    await transport.enqueue('b1', { accountId: 2 });
    // A client now waits on a2 (JobsService.promoteWhileWaited): an interactive delivery with a key of its own.
    await transport.enqueue('a2', { key: 'interactive', priority: 'interactive', accountId: 1 });
    for (let i = 0; i < 4; i++) {
      gate.resolve();
      gate = deferred();
      await settle();
    }
    expect(delivered.map((d) => `${d.jobId}:${d.delivery.priority}`)).toEqual(['busy:batch', 'a2:interactive', 'a1:batch', 'b1:batch']);
  });

  it('a promotion leaves a batch delivery already handed over alone, and the job can be queued again afterwards', async () => {
    consumeHeld();
    await transport.enqueue('j');
    await settle();
    await transport.enqueue('j', { key: 'interactive', priority: 'interactive' });
    await transport.enqueue('j');
    for (let i = 0; i < 3; i++) {
      gate.resolve();
      gate = deferred();
      await settle();
    }
    expect(delivered.map((d) => `${d.jobId}:${d.delivery.priority}`)).toEqual(['j:batch', 'j:interactive', 'j:batch']);
  });

  it('a delayed delivery pending for its key is not added twice', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      transport.consume(async (jobId) => void delivered.push({ jobId, delivery: { redelivered: false, priority: 'batch' } }), 1);
      await transport.enqueue('j', { delayMs: 2_000, key: 'retry:1' });
      await transport.enqueue('j', { delayMs: 2_000, key: 'retry:1' });
      await jest.advanceTimersByTimeAsync(2_000);
      expect(delivered.map((d) => d.jobId)).toEqual(['j']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('once it stops taking jobs, a running one carries on and nothing waiting is delivered; close does not wait for the running one', async () => {
    consumeHeld();
    await transport.enqueue('running');
    await transport.enqueue('waiting');
    await transport.stopTaking();
    expect(await transport.handBack()).toBe(1);
    gate.resolve();
    await settle();
    await transport.enqueue('later');
    await settle();
    expect(delivered.map((d) => d.jobId)).toEqual(['running']);

    const held = new InProcessJobTransport();
    held.consume(() => new Promise(() => undefined), 1);
    await held.enqueue('cut-off');
    await held.stopTaking();
    await held.close(); // resolves although its handler never ends
  });
});
