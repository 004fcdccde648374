import { within } from './within';

describe('within', () => {
  it('answers with the work when it settles in time', async () => {
    await expect(within(Promise.resolve(7), 1000, () => new Error('late'))).resolves.toBe(7);
    await expect(within(Promise.reject(new Error('own failure')), 1000, () => new Error('late'))).rejects.toThrow('own failure');
  });

  it('rejects with the given failure once the time is up, and leaves no timer behind', async () => {
    jest.useFakeTimers();
    try {
      const never = new Promise<number>(() => undefined);
      const raced = within(never, 50, () => new Error('took too long'));
      jest.advanceTimersByTime(50);
      await expect(raced).rejects.toThrow('took too long');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('clears its timer when the work wins', async () => {
    jest.useFakeTimers();
    try {
      await within(Promise.resolve(1), 10_000, () => new Error('late'));
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
