import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  it('hands out at most `permits` at once and serves waiters first come, first served', async () => {
    const semaphore = new Semaphore(2);
    const order: string[] = [];
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    const waiters = ['a', 'b', 'c'].map((name) =>
      semaphore.acquire().then((release) => {
        order.push(name);
        return release;
      }),
    );
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(semaphore.waiting).toBe(3);

    second();
    const releaseA = await waiters[0];
    first();
    const releaseB = await waiters[1];
    expect(order).toEqual(['a', 'b']);
    expect(semaphore.inUse).toBe(2);

    releaseA();
    releaseA(); // a second release of the same permit must not free another one
    const releaseC = await waiters[2];
    expect(order).toEqual(['a', 'b', 'c']);
    expect(semaphore.inUse).toBe(2);

    releaseB();
    releaseC();
    expect(semaphore.inUse).toBe(0);
  });

  it('releases the permit when the guarded work fails', async () => {
    const semaphore = new Semaphore(1);

    await expect(semaphore.use(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(semaphore.inUse).toBe(0);
  });

  it('fails waiting and later acquirers once closed', async () => {
    const semaphore = new Semaphore(1);
    await semaphore.acquire();
    const waiting = semaphore.acquire();

    semaphore.close(new Error('shut down'));

    await expect(waiting).rejects.toThrow('shut down');
    await expect(semaphore.acquire()).rejects.toThrow('shut down');
  });

  it('refuses a nonsensical size', () => {
    expect(() => new Semaphore(0)).toThrow('positive');
  });
});
