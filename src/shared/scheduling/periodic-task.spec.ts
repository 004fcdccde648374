import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  afterEach(() => jest.useRealTimers());

  it('a run asked for while one is under way joins it; the next one starts afresh', async () => {
    const task = new PeriodicTask<number>(() => undefined);
    let runs = 0;
    let finish!: () => void;
    const run = () => new Promise<number>((resolve) => (finish = () => resolve(++runs)));
    const first = task.exclusive(run);
    const joined = task.exclusive(run);
    finish();
    expect(await Promise.all([first, joined])).toEqual([1, 1]);
    const second = task.exclusive(run);
    finish();
    expect(await second).toBe(2);
  });

  it('runs after the first delay, then at the interval; errors go to onError; stop() waits for the run under way', async () => {
    jest.useFakeTimers();
    const errors: unknown[] = [];
    const task = new PeriodicTask<void>((err) => errors.push(err));
    let calls = 0;
    let release!: () => void;
    task.start(100, 1_000, async () => {
      calls++;
      if (calls === 1) throw new Error('first failed');
      await new Promise<void>((resolve) => (release = resolve));
    });
    await jest.advanceTimersByTimeAsync(99);
    expect(calls).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls).toBe(1);
    expect(errors).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(2);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    await jest.advanceTimersByTimeAsync(5_000);
    expect(calls).toBe(2); // no run after stop()
  });
});
