import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { isIP } from 'node:net';
import { resolve, join } from 'node:path';
import { parseSecretsKey } from './secrets-key';
import { parseProxyUrl, PROXY_URL_RULE } from '../shared/domain/proxy-url';

export type Role = 'all' | 'api' | 'worker';

/**
 * Every setting the service reads, read from the environment once at start and validated, so a typo
 * fails the boot with a clear message instead of surfacing as odd behaviour later. An abstract class so it
 * doubles as its own DI token.
 */
export abstract class AppConfig {
  port!: number;
  host!: string;
  dataDir!: string;
  storageDir!: string;
  databaseUrl!: string | null;
  redisUrl!: string | null;
  /** Namespace for every Redis key and Bull queue, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix!: string;
  publicUrl!: string | null;
  role!: Role;
  chromePath!: string | null;
  allowPrivateNetworks!: boolean;
  urlAllowlist!: string[];
  /** CAPTURE_PROXY: the operator's upstream proxy for captures that name none (a corporate egress); null: direct. */
  captureProxy!: string | null;
  /** CAPTURE_PROXY_BYPASS: page hosts (`intranet.local`, `*.corp`, `.corp`) that never use CAPTURE_PROXY. */
  captureProxyBypass!: string[];
  logLevel!: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  captureConcurrency!: number;
  captureBrowsers!: number;
  captureTimeoutMs!: number;
  captureMaxHeight!: number;
  captureRecycleAfter!: number;
  /** CAPTURE_PREWARM: a fresh context and tab kept open per browser for the next capture. */
  capturePrewarm!: boolean;
  /** CAPTURE_FAST_PNG: Chromium's fast PNG encoder (less CPU per capture, larger files). */
  captureFastPng!: boolean;
  scenarioTimeoutMs!: number;
  /** How long an element step (click, fill, hover, select, scroll) waits for its element. */
  scenarioStepTimeoutMs!: number;
  /** How often each worker looks for due schedules. */
  scheduleTickMs!: number;
  /** Bull lock: a job held by a worker that died is redelivered after about this long. */
  jobLockMs!: number;
  /** SIGTERM: how long running jobs may take to finish before they are handed back to the queue. */
  shutdownGraceMs!: number;
  authFailureLimitPerMinute!: number;
  /** Dashboard requests per client address per minute (its own limit; the API's per-account quota does not apply). */
  dashboardLimitPerMinute!: number;
  /** Sign-in form posts per client address per minute, on top of the per-email lock-out. */
  signInLimitPerMinute!: number;
  /**
   * Which X-Forwarded-* hops to believe: false (none), a number of proxy hops in front of the app (the
   * client address is that many entries from the right of X-Forwarded-For), or the proxies' addresses/CIDRs.
   */
  trustProxy!: false | number | string[];
  /** METRICS_TOKEN: the bearer token GET /metrics asks for; null: /metrics is open to whoever reaches the port. */
  metricsToken!: string | null;
  apiVersion!: string;
  /** SECRETS_KEY (32 bytes, hex or base64); null: a key generated once into DATA_DIR/secrets.key. */
  secretsKey!: Buffer | null;
  /** RETENTION_DAYS: screenshots older than this many days are deleted by a periodic sweep; null: kept forever. */
  retentionDays!: number | null;
  /** WEBHOOK_RETRY_DELAYS: seconds between a failed delivery attempt and the next; after the last, it has failed. */
  webhookRetryDelays!: number[];
  /** WEBHOOK_LIMIT_PER_MINUTE: deliveries sent per account per minute (their own limit, not the API's). */
  webhookLimitPerMinute!: number;
  /** WEBHOOK_POLL_MS: how often each worker looks for finished jobs to announce and deliveries that are due. */
  webhookPollMs!: number;
  /** SMTP_URL (smtp:// or smtps://, credentials in the URL): where e-mail notifications are sent; null: none can be. */
  smtpUrl!: string | null;
  /** MAIL_FROM: the sender of e-mail notifications. */
  mailFrom!: string;
  /** STORAGE_DRIVER: screenshot files on local disk (STORAGE_DIR) or in an S3-compatible bucket (`s3`). */
  storageDriver!: 'local' | 's3';
  /** Set when storageDriver is 's3'. */
  s3!: S3Settings | null;
}

export interface S3Settings {
  bucket: string;
  /** MinIO, R2, …; null: AWS's own endpoint for the region. */
  endpoint: string | null;
  region: string;
  /** Both set, or both null (then the SDK's default credential chain: env, profile, instance role, …). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
  /** Prepended to every key (`tenant-a/` → `tenant-a/screenshots/1/2/3.png`); '' by default. */
  prefix: string;
  /**
   * S3_TIMEOUT_MS: the most one storage call may take, the SDK's own retries included (a whole upload, all its
   * parts, is one call); past it the call fails as `unavailable`. Connecting is bounded by min(3 s, this).
   */
  timeoutMs: number;
}

export class ConfigError extends Error {}

/**
 * The default cap per core when CAPTURE_CONCURRENCY is unset: high enough that waiting pages never leave the
 * cores idle (the admission keeps the real number lower when the cores are busy). Measured: docs/benchmark.md
 * ("What the numbers say", Concurrency, and run (e)). Here rather than in adapters/capture: config imports nothing above it.
 */
export const DEFAULT_CONCURRENCY_PER_CORE = 8;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  return value;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

/**
 * TRUST_PROXY: `false` (default), `true` = one proxy hop, a hop count, or a comma list of the proxies'
 * addresses/CIDRs. `true` never means "believe every hop": the leftmost X-Forwarded-For entry is whatever
 * the client sent, and believing it would let anyone pick a fresh address for every guess of a password
 * or token and walk around the per-address limits.
 */
function trustProxy(env: NodeJS.ProcessEnv): false | number | string[] {
  const raw = env.TRUST_PROXY?.trim() ?? '';
  if (raw === '') return false;
  if (/^\d+$/.test(raw)) return int(env, 'TRUST_PROXY', 0, 0, 10) || false;
  const v = raw.toLowerCase();
  if (['true', 'yes', 'on'].includes(v)) return 1;
  if (['false', 'no', 'off'].includes(v)) return false;
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    if (!family || rest.length > 0 || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`TRUST_PROXY must be true, false, a number of proxy hops (0..10), or a comma list of proxy addresses/CIDRs (got "${raw}")`);
    }
  }
  return entries;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')})`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
  return raw.trim();
}

/**
 * Failed guesses at /metrics are not throttled (a scraper with a stale token must not lock itself out), so the
 * token itself has to be unguessable.
 */
function metricsToken(env: NodeJS.ProcessEnv): string | null {
  const raw = env.METRICS_TOKEN?.trim() ?? '';
  if (raw === '') return null;
  if (!/^[\x21-\x7e]{16,}$/.test(raw)) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 visible ASCII characters without spaces (e.g. `openssl rand -hex 32`)');
  }
  return raw;
}

function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: string };
    return manifest.version ?? '1.0.0';
  } catch {
    return '1.0.0';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const cores = Math.max(1, cpus().length);
  const dataDir = resolve(env.DATA_DIR?.trim() || './data');
  const role = (env.ROLE?.trim() || 'all') as Role;
  if (!['all', 'api', 'worker'].includes(role)) throw new ConfigError(`ROLE must be one of all, api, worker (got "${env.ROLE}")`);
  const logLevel = (env.LOG_LEVEL?.trim().toLowerCase() || 'info') as AppConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  if (role !== 'all' && (!databaseUrl || !redisUrl)) {
    throw new ConfigError(`ROLE=${role} needs DATABASE_URL and REDIS_URL: separate api and worker processes share work through PostgreSQL and Redis`);
  }
  const publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']);
  const urlAllowlist = (env.URL_ALLOWLIST ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      try {
        const origin = new URL(entry).origin;
        if (origin === 'null') throw new Error();
        return origin;
      } catch {
        throw new ConfigError(`URL_ALLOWLIST entries must be origins like http://intranet.local:8080 (got "${entry}")`);
      }
    });

  const captureProxy = env.CAPTURE_PROXY?.trim() || null;
  // The value may hold a password: the error names the variable, never echoes it.
  if (captureProxy && !parseProxyUrl(captureProxy)) throw new ConfigError(`CAPTURE_PROXY ${PROXY_URL_RULE}`);
  const captureProxyBypass = (env.CAPTURE_PROXY_BYPASS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

  const rawSecretsKey = env.SECRETS_KEY?.trim() || '';
  const secretsKey = rawSecretsKey ? parseSecretsKey(rawSecretsKey) : null;
  if (rawSecretsKey && !secretsKey) throw new ConfigError('SECRETS_KEY must be 32 bytes as 64 hex characters or base64 (e.g. `openssl rand -base64 32`)');

  const storageDriver = (env.STORAGE_DRIVER?.trim().toLowerCase() || 'local') as AppConfig['storageDriver'];
  if (!['local', 's3'].includes(storageDriver)) throw new ConfigError(`STORAGE_DRIVER must be local or s3 (got "${env.STORAGE_DRIVER}")`);

  return {
    secretsKey,
    retentionDays: env.RETENTION_DAYS?.trim() ? int(env, 'RETENTION_DAYS', 0, 1, 36500) : null,
    webhookRetryDelays: retryDelays(env),
    webhookLimitPerMinute: int(env, 'WEBHOOK_LIMIT_PER_MINUTE', 600, 1, 1000000),
    webhookPollMs: int(env, 'WEBHOOK_POLL_MS', 1000, 50, 600000),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM?.trim() || 'Screenshot service <screenshots@localhost>',
    storageDriver,
    s3: storageDriver === 's3' ? s3Settings(env) : null,
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    dataDir,
    storageDir: resolve(env.STORAGE_DIR?.trim() || join(dataDir, 'screenshots')),
    databaseUrl,
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'screenshots',
    publicUrl: publicUrl ? publicUrl.replace(/\/+$/, '') : null,
    role,
    chromePath: env.CHROME_PATH?.trim() || null,
    allowPrivateNetworks: bool(env, 'ALLOW_PRIVATE_NETWORKS', false),
    urlAllowlist,
    captureProxy,
    captureProxyBypass,
    logLevel,
    captureConcurrency: int(env, 'CAPTURE_CONCURRENCY', DEFAULT_CONCURRENCY_PER_CORE * cores, 1, 256),
    captureBrowsers: int(env, 'CAPTURE_BROWSERS', cores, 1, 64),
    captureTimeoutMs: int(env, 'CAPTURE_TIMEOUT_MS', 30000, 1000, 600000),
    captureMaxHeight: int(env, 'CAPTURE_MAX_HEIGHT', 32768, 240, 100000),
    captureRecycleAfter: int(env, 'CAPTURE_RECYCLE_AFTER', 200, 1, 1000000),
    capturePrewarm: bool(env, 'CAPTURE_PREWARM', true),
    captureFastPng: bool(env, 'CAPTURE_FAST_PNG', true),
    scenarioTimeoutMs: int(env, 'SCENARIO_TIMEOUT_MS', 120000, 1000, 3600000),
    scenarioStepTimeoutMs: int(env, 'SCENARIO_STEP_TIMEOUT_MS', 10000, 100, 600000),
    scheduleTickMs: int(env, 'SCHEDULE_TICK_MS', 5000, 100, 3600000),
    jobLockMs: int(env, 'JOB_LOCK_MS', 30000, 1000, 600000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 15000, 0, 600000),
    authFailureLimitPerMinute: int(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 30, 1, 1000000),
    dashboardLimitPerMinute: int(env, 'DASHBOARD_LIMIT_PER_MINUTE', 600, 1, 1000000),
    signInLimitPerMinute: int(env, 'SIGN_IN_LIMIT_PER_MINUTE', 20, 1, 1000000),
    trustProxy: trustProxy(env),
    metricsToken: metricsToken(env),
    apiVersion: packageVersion(),
  };
}

function s3Settings(env: NodeJS.ProcessEnv): S3Settings {
  const bucket = env.S3_BUCKET?.trim() || '';
  if (!bucket) throw new ConfigError('STORAGE_DRIVER=s3 needs S3_BUCKET (the bucket screenshots are stored in)');
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  const accessKeyId = env.S3_ACCESS_KEY_ID?.trim() || null;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY?.trim() || null;
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new ConfigError('Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (then the AWS SDK finds credentials itself)');
  }
  let prefix = (env.S3_PREFIX ?? '').trim().replace(/^\/+/, '');
  if (prefix && !prefix.endsWith('/')) prefix += '/';
  return {
    bucket,
    endpoint,
    region: env.S3_REGION?.trim() || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
    prefix,
    timeoutMs: int(env, 'S3_TIMEOUT_MS', 30000, 100, 600000),
  };
}

function retryDelays(env: NodeJS.ProcessEnv): number[] {
  const raw = env.WEBHOOK_RETRY_DELAYS?.trim() || '5,30,120,600,3600,21600';
  const delays = raw.split(',').map((part) => Number(part.trim()));
  if (delays.length > 20 || delays.some((d) => !Number.isInteger(d) || d < 0 || d > 7 * 24 * 3600)) {
    throw new ConfigError(`WEBHOOK_RETRY_DELAYS must be up to 20 whole numbers of seconds (0..604800), comma-separated (got "${raw}")`);
  }
  return delays;
}
