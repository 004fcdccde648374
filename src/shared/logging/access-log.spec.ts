import Fastify from 'fastify';
import type { Logger } from 'pino';
import { isLoggedPath, serializeRequest, serializeResponse, writeAccessLog } from './access-log';

describe('access log', () => {
  it('keeps method, path and address, drops the query string and every header', () => {
    const line = serializeRequest({
      id: 7,
      method: 'GET',
      url: '/jobs/5?wait=30&token=secret',
      ip: '127.0.0.1',
      ...({ headers: { authorization: 'Bearer sk_live_x', cookie: 'session=y' } } as object),
    });
    expect(line).toEqual({ id: 7, method: 'GET', path: '/jobs/5', remoteAddress: '127.0.0.1' });
    expect(JSON.stringify(line)).not.toMatch(/secret|sk_live|session=/);
  });

  it('keeps a path without a query as it is', () => {
    expect(serializeRequest({ method: 'POST', url: '/websites' }).path).toBe('/websites');
  });

  it('says only the status of a response (no Set-Cookie)', () => {
    expect(serializeResponse({ statusCode: 201, ...({ headers: { 'set-cookie': 'a=b' } } as object) })).toEqual({ statusCode: 201 });
  });

  it('does not log health checks and successful scrapes of /metrics; a refused scrape is logged', () => {
    expect(isLoggedPath('/health')).toBe(false);
    expect(isLoggedPath('/health', 503)).toBe(false);
    expect(isLoggedPath('/metrics', 200)).toBe(false);
    expect(isLoggedPath('/metrics', 401)).toBe(true);
    expect(isLoggedPath('/websites')).toBe(true);
    expect(isLoggedPath('/websites', 500)).toBe(true);
  });

  it('writes one line per answered request from the onResponse hook, errors at error level', async () => {
    const lines: Array<{ level: string; line: Record<string, unknown>; msg: string }> = [];
    const logger = {
      info: (line: Record<string, unknown>, msg: string) => lines.push({ level: 'info', line, msg }),
      error: (line: Record<string, unknown>, msg: string) => lines.push({ level: 'error', line, msg }),
    } as unknown as Logger;
    const fastify = Fastify();
    writeAccessLog(fastify, () => logger);
    fastify.get('/ok', async () => ({ ok: true }));
    fastify.get('/boom', async (_req, reply) => reply.status(503).send({}));
    fastify.get('/health', async () => ({}));
    await fastify.inject({ method: 'GET', url: '/ok?x=1', headers: { authorization: 'Bearer t' } });
    await fastify.inject({ method: 'GET', url: '/boom' });
    await fastify.inject({ method: 'GET', url: '/health' });
    await fastify.close();
    expect(lines.map((l) => [l.level, l.msg, (l.line.request as { path: string }).path, (l.line.response as { statusCode: number }).statusCode])).toEqual([
      ['info', 'request completed', '/ok', 200],
      ['error', 'request errored', '/boom', 503],
    ]);
    expect(JSON.stringify(lines)).not.toContain('Bearer');
  });
});
