import type { FastifyReply } from 'fastify';

/**
 * A signal that aborts when the client's connection closes before (or when) the reply is done, so work that
 * only serves this client — a long-poll's wait — stops and lets go of its listener and timer at once.
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => controller.abort());
  return controller.signal;
}
