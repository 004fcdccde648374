import { getEventListeners } from 'node:events';
import type { FastifyReply } from 'fastify';

/**
 * A signal that aborts when the client's connection closes before (or when) the reply is done, so work that
 * only serves this client — a long-poll's wait — stops and lets go of its listener and timer at once.
 *
 * After a reply sent in full, it aborts only when something still listens: nearly always nothing does (the work
 * ended before the answer), and aborting would build an AbortError and dispatch it to no one (~7 µs on every
 * render and long-poll).
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished || getEventListeners(controller.signal, 'abort').length > 0) controller.abort();
  });
  return controller.signal;
}
