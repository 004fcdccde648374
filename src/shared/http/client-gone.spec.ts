import { EventEmitter } from 'node:events';
import type { FastifyReply } from 'fastify';
import { clientGone } from './client-gone';

/** A reply whose connection closes, with its answer sent in full (`writableFinished`) or not. */
function replyClosing(): { reply: FastifyReply; close: (finished: boolean) => void } {
  const raw = Object.assign(new EventEmitter(), { writableFinished: false });
  return {
    reply: { raw } as unknown as FastifyReply,
    close: (finished) => {
      raw.writableFinished = finished;
      raw.emit('close');
    },
  };
}

describe('clientGone', () => {
  it('aborts when the connection closes before the answer was sent in full (the client left)', () => {
    const { reply, close } = replyClosing();
    const signal = clientGone(reply);
    close(false);
    expect(signal.aborted).toBe(true);
  });

  it('after an answer sent in full, aborts for what still listens (a wait left behind lets go at once)', () => {
    const { reply, close } = replyClosing();
    const signal = clientGone(reply);
    const onAbort = jest.fn();
    signal.addEventListener('abort', onAbort, { once: true });
    close(true);
    expect(onAbort).toHaveBeenCalledTimes(1);
  });

  it('after an answer sent in full with nothing listening, does not abort (no AbortError built for no one)', () => {
    const { reply, close } = replyClosing();
    const signal = clientGone(reply);
    const onAbort = jest.fn();
    signal.addEventListener('abort', onAbort);
    signal.removeEventListener('abort', onAbort);
    close(true);
    expect(signal.aborted).toBe(false);
  });
});
