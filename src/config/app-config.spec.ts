import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      role: 'all',
      publicUrl: null,
      alertLinkDays: 30,
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

  it('reports every bad variable at once, each by its name and the value it got (one zod schema, issue 43)', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: '70000', CAPTURE_FAST_PNG: 'smaller', WEBHOOK_POLL_MS: '1' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split('; ')).toEqual([
      'PORT must be an integer between 0 and 65535 (got "70000")',
      'CAPTURE_FAST_PNG must be true or false (got "smaller")',
      'WEBHOOK_POLL_MS must be an integer between 50 and 600000 (got "1")',
    ]);
  });

  it.each([
    [{ STORAGE_DRIVER: 's3' }, /^STORAGE_DRIVER=s3 needs S3_BUCKET/],
    [{ STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'AKIA' }, /^Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither/],
    [{ STORAGE_DRIVER: 'ftp' }, /^STORAGE_DRIVER must be local or s3 \(got "ftp"\)$/],
    [{ SECRETS_KEY: 'short' }, /^SECRETS_KEY must be 32 bytes/],
    [{ WEBHOOK_RETRY_DELAYS: '5,x' }, /^WEBHOOK_RETRY_DELAYS must be up to 20 whole numbers/],
    [{ RETENTION_DAYS: '0' }, /^RETENTION_DAYS must be an integer between 1 and 36500 \(got "0"\)$/],
    [{ SMTP_URL: 'http://mail' }, /^SMTP_URL must use smtp: or smtps: \(got "http:"\)$/],
    [{ ALERT_LINK_DAYS: '0' }, /^ALERT_LINK_DAYS must be an integer between 1 and 3650 \(got "0"\)$/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('applies defaults to blank values and reads the S3 settings only with STORAGE_DRIVER=s3', () => {
    expect(loadConfig({ PORT: '  ', RETENTION_DAYS: '' })).toMatchObject({
      port: 3000,
      retentionDays: null,
      s3: null,
      webhookRetryDelays: [5, 30, 120, 600, 3600, 21600],
    });
    expect(loadConfig({ STORAGE_DRIVER: 'S3', S3_BUCKET: ' shots ', S3_PREFIX: '/tenant/a', S3_FORCE_PATH_STYLE: 'yes' }).s3).toEqual({
      bucket: 'shots',
      endpoint: null,
      region: 'us-east-1',
      accessKeyId: null,
      secretAccessKey: null,
      forcePathStyle: true,
      prefix: 'tenant/a/',
      timeoutMs: 30000,
      firstByteTimeoutMs: 3000,
    });
  });

  it('reads the scaled-out settings', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://u@db/x',
      REDIS_URL: 'redis://r:6379',
      ROLE: 'api',
      PUBLIC_URL: 'https://shots.example.com/',
      URL_ALLOWLIST: 'http://intranet.local:8080/path, https://wiki.corp',
    });
    expect(loadConfig({ ALERT_LINK_DAYS: '7' }).alertLinkDays).toBe(7);
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
