import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';
import { within } from './within';

describe('within', () => {
  it('answers with the work when it settles in time', async () => {
    await expect(within(Promise.resolve(7), 1000, () => new Error('late'))).resolves.toBe(7);
    await expect(within(Promise.reject(new Error('own failure')), 1000, () => new Error('late'))).rejects.toThrow('own failure');
  });

  it('rejects with the given failure once the time is up, and leaves no timer behind', async () => {
    // The verdict waits for one pass of the event loop (setImmediate): that one stays real.
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
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

  it('does not count time the event loop was held: an answer that arrived meanwhile wins over the late timer', async () => {
    // A real socket round trip, as a Redis command is, to a server with its own event loop (a worker thread), so
    // that it answers while this thread is busy.
    const server = new Worker(
      `const { createServer } = require('node:net'); const { parentPort } = require('node:worker_threads');
       const server = createServer((socket) => socket.on('data', () => socket.write('pong')));
       server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
      { eval: true },
    );
    const port = await new Promise<number>((resolve) => server.once('message', resolve));
    const client = connect(port, '127.0.0.1');
    try {
      await new Promise((resolve) => client.once('connect', resolve));
      const answer = new Promise<string>((resolve) => client.once('data', (data) => resolve(data.toString())));
      client.write('ping');
      const raced = within(answer, 100, () => new Error('Command timed out'));
      // A synchronous task holds the loop past the time limit while the answer arrives: when the loop resumes, the
      // answer and the expired timer are both ready.
      const heldUntil = Date.now() + 400;
      while (Date.now() < heldUntil) {
        // busy
      }

      await expect(raced).resolves.toBe('pong');
    } finally {
      client.destroy();
      await server.terminate();
    }
  });
});
