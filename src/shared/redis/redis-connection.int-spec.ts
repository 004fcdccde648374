import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';
import { commandWithin, REDIS_COMMAND_TIMEOUT_MS } from './redis-connection';

/**
 * Real sockets and real time (integration tier): the unit tier checks the same rules on a fake clock
 * (redis-connection.spec.ts); this file shows them hold with a real event loop, with margins a loaded machine keeps.
 */
describe('commandWithin (a Redis command’s time limit), real time', () => {
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
      const raced = commandWithin(answer);
      // A synchronous task holds the loop past the time limit while the answer arrives: when the loop resumes, the
      // answer and the expired timer are both ready.
      const heldUntil = Date.now() + REDIS_COMMAND_TIMEOUT_MS + 100;
      while (Date.now() < heldUntil) {
        // busy
      }

      await expect(raced).resolves.toBe('pong');
    } finally {
      client.destroy();
      await server.terminate();
    }
  });

  it('a command that never answers fails "Command timed out" (the error filter’s 503) after the limit', async () => {
    const started = Date.now();
    await expect(commandWithin(new Promise(() => undefined))).rejects.toThrow('Command timed out');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(REDIS_COMMAND_TIMEOUT_MS - 5);
    expect(elapsed).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + 1_000); // a margin for a loaded machine
  });
});
