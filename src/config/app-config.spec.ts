import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      role: 'all',
      databaseUrl: null,
      redisUrl: null,
      allowPrivateNetworks: false,
      logLevel: 'info',
      captureTimeoutMs: 30000,
      captureMaxHeight: 32768,
      capturePrewarm: true,
      captureFastPng: true,
    });
    expect(c.dataDir).toMatch(/\/data$/);
    expect(c.storageDir).toBe(`${c.dataDir}/screenshots`);
    expect(c.captureConcurrency).toBeGreaterThanOrEqual(2);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be an integer/],
    [{ PORT: '70000' }, /PORT must be an integer between 0 and 65535/],
    [{ ROLE: 'boss' }, /ROLE must be one of all, api, worker/],
    [{ ROLE: 'worker' }, /ROLE=worker needs DATABASE_URL and REDIS_URL/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must use postgres/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL must be a URL/],
    [{ ALLOW_PRIVATE_NETWORKS: 'maybe' }, /ALLOW_PRIVATE_NETWORKS must be true or false/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ URL_ALLOWLIST: 'intranet' }, /URL_ALLOWLIST entries must be origins/],
    [{ CAPTURE_PROXY: 'ftp://user:hunter2@p:21' }, /^CAPTURE_PROXY must be a proxy URL: http:\/\/, https:\/\/ or socks5:\/\/(?!.*hunter2)/],
    [{ CAPTURE_TIMEOUT_MS: '10' }, /CAPTURE_TIMEOUT_MS must be an integer between 1000/],
    [{ CAPTURE_FAST_PNG: 'smaller' }, /CAPTURE_FAST_PNG must be true or false/],
    [{ TRUST_PROXY: 'nginx' }, /TRUST_PROXY must be true, false, a number of proxy hops/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY must be/],
    [{ TRUST_PROXY: '11' }, /TRUST_PROXY must be an integer between 0 and 10/],
  ])('refuses %j with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads the scaled-out settings', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://u@db/x',
      REDIS_URL: 'redis://r:6379',
      ROLE: 'api',
      PUBLIC_URL: 'https://shots.example.com/',
      URL_ALLOWLIST: 'http://intranet.local:8080/path, https://wiki.corp',
    });
    expect(c).toMatchObject({ role: 'api', publicUrl: 'https://shots.example.com', urlAllowlist: ['http://intranet.local:8080', 'https://wiki.corp'] });
  });

  it.each([
    [undefined, false],
    ['false', false],
    ['0', false],
    // "true" is one hop, never "believe every hop": the leftmost X-Forwarded-For entry is the client's own word.
    ['true', 1],
    ['1', 1],
    ['2', 2],
    ['10.0.0.1, 10.1.0.0/16, ::1, fd00::/8', ['10.0.0.1', '10.1.0.0/16', '::1', 'fd00::/8']],
  ])('TRUST_PROXY=%s → %j', (raw, expected) => {
    expect(loadConfig(raw === undefined ? {} : { TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });
});
