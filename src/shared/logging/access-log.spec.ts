import { accessLogOptions, serializeRequest, serializeResponse } from './access-log';

describe('access log', () => {
  it('keeps method, path and address, drops the query string and every header', () => {
    const line = serializeRequest({
      id: 7,
      method: 'GET',
      url: '/jobs/5?wait=30&token=secret',
      remoteAddress: '127.0.0.1',
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

  it('does not log health checks', () => {
    const ignore = (accessLogOptions('info').autoLogging as { ignore: (req: { url?: string }) => boolean }).ignore;
    expect(ignore({ url: '/health' })).toBe(true);
    expect(ignore({ url: '/websites' })).toBe(false);
  });
});
