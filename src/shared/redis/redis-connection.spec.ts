import { commandWithin, REDIS_COMMAND_TIMEOUT_MS } from './redis-connection';

/**
 * The time limit's rules on a fake clock (no wall-clock ceiling: a loaded machine cannot break these). Real sockets
 * and real time: redis-connection.int-spec.ts.
 */
describe('commandWithin (a Redis command’s time limit)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  const settled = async <T>(p: Promise<T>): Promise<{ value?: T; error?: string } | 'pending'> => {
    let outcome: { value?: T; error?: string } | 'pending' = 'pending';
    p.then(
      (value) => (outcome = { value }),
      (err: Error) => (outcome = { error: err.message }),
    );
    await new Promise((resolve) => setImmediate(resolve)); // the verdict waits for one setImmediate
    await new Promise((resolve) => setImmediate(resolve));
    return outcome;
  };

  it('a command that never answers fails "Command timed out" (the error filter’s 503) at the limit, not before', async () => {
    const raced = commandWithin(new Promise(() => undefined));
    jest.advanceTimersByTime(REDIS_COMMAND_TIMEOUT_MS - 1);
    expect(await settled(raced)).toBe('pending');
    jest.advanceTimersByTime(1);
    expect(await settled(raced)).toEqual({ error: 'Command timed out' });
  });

  it('an answer that arrives when the timer has fired but before the next poll phase wins (time the loop was held)', async () => {
    let answer!: (value: string) => void;
    const raced = commandWithin(new Promise<string>((resolve) => (answer = resolve)));
    jest.advanceTimersByTime(REDIS_COMMAND_TIMEOUT_MS + 100); // the timer fired: its verdict waits for setImmediate
    answer('pong'); // read in the same turn, as a reply already in the socket is
    expect(await settled(raced)).toEqual({ value: 'pong' });
  });

  it('an answer in time is the result', async () => {
    expect(await settled(commandWithin(Promise.resolve('PONG')))).toEqual({ value: 'PONG' });
  });
});
