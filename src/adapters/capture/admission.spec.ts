import { AdmissionLimits, CaptureAdmission, LoadProbe, SystemLoad } from './admission';

class FakeLoad implements LoadProbe {
  busy = 0.2;
  memory = 8 * 1024 ** 3;
  reads = 0;
  cpuBusy(): number {
    this.reads++;
    return this.busy;
  }
  availableMemory(): number {
    return this.memory;
  }
}

const LIMITS: AdmissionLimits = { floor: 2, cap: 5, cpuTarget: 0.85, memoryReserve: 1024 ** 3, stepMs: 100 };

/** Lets queued promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CaptureAdmission', () => {
  let load: FakeLoad;
  let clock: number;
  let admission: CaptureAdmission;
  let admitted: (() => void)[];

  function ask(n: number): void {
    for (let i = 0; i < n; i++)
      void admission
        .acquire()
        .then((release) => admitted.push(release))
        .catch(() => undefined); // closed after the test
  }

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'performance'] });
    load = new FakeLoad();
    clock = 0;
    admission = new CaptureAdmission(LIMITS, load, () => clock);
    admitted = [];
  });

  afterEach(() => {
    admission.close(new Error('test over'));
    jest.useRealTimers();
  });

  function advance(ms: number): void {
    clock += ms;
    jest.advanceTimersByTime(ms);
  }

  it('admits up to the floor at once without reading the gauges', async () => {
    load.busy = 1;
    ask(2);
    await settle();
    expect(admitted).toHaveLength(2);
    expect(load.reads).toBe(0);
  });

  it('above the floor, admits one per step while the cores are below the target, up to the cap', async () => {
    ask(8);
    await settle();
    expect(admitted).toHaveLength(3); // the floor, plus one step
    advance(100);
    await settle();
    expect(admitted).toHaveLength(4);
    advance(100);
    await settle();
    expect(admitted).toHaveLength(5);
    advance(1000);
    await settle();
    expect(admitted).toHaveLength(5); // the cap
    expect(admission.inUse).toBe(5);
    expect(admission.waiting).toBe(3);
  });

  it('busy cores hold captures above the floor back until they calm down', async () => {
    load.busy = 0.95;
    ask(4);
    await settle();
    expect(admitted).toHaveLength(2);
    advance(500);
    await settle();
    expect(admitted).toHaveLength(2);
    load.busy = 0.5;
    advance(100);
    await settle();
    expect(admitted).toHaveLength(3);
  });

  it('low memory holds captures above the floor back', async () => {
    load.memory = 512 * 1024 ** 2;
    ask(4);
    advance(1000);
    await settle();
    expect(admitted).toHaveLength(2);
  });

  it('a release admits the next waiter in arrival order, within the floor at once', async () => {
    load.busy = 1;
    const order: number[] = [];
    const releases: (() => void)[] = [];
    for (let i = 0; i < 4; i++)
      void admission
        .acquire()
        .then((release) => (order.push(i), releases.push(release)))
        .catch(() => undefined);
    await settle();
    expect(order).toEqual([0, 1]);
    releases[0]();
    releases[0](); // twice is harmless
    await settle();
    expect(order).toEqual([0, 1, 2]);
    expect(admission.inUse).toBe(2);
  });

  it('close() fails the waiters and every later acquire with its error; admitted captures are unaffected', async () => {
    load.busy = 1;
    ask(2);
    const waiting = admission.acquire();
    await settle();
    const error = new Error('pool closed');
    admission.close(error);
    await expect(waiting).rejects.toBe(error);
    await expect(admission.acquire()).rejects.toBe(error);
    expect(admission.inUse).toBe(2);
  });

  it('refuses limits where the floor exceeds the cap', () => {
    expect(() => new CaptureAdmission({ ...LIMITS, floor: 6 }, load)).toThrow(/floor <= cap/);
  });
});

describe('SystemLoad', () => {
  it('reads a CPU share between 0 and 1 and the available memory', () => {
    const probe = new SystemLoad();
    const end = Date.now() + 20;
    while (Date.now() < end); // some CPU time to measure
    const busy = probe.cpuBusy();
    expect(busy).toBeGreaterThanOrEqual(0);
    expect(busy).toBeLessThanOrEqual(1);
    expect(probe.availableMemory()).toBeGreaterThan(0);
  });

  it('sees this process keep a core busy (its first reading, since the probe was made, covers the spin)', () => {
    const probe = new SystemLoad();
    const end = Date.now() + 100; // ten of /proc/stat's 10 ms ticks
    while (Date.now() < end);
    expect(probe.cpuBusy()).toBeGreaterThan(0);
  });
});
