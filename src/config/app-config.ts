import { readFileSync } from 'node:fs';
import { parseProxyUrl, PROXY_URL_RULE } from '../shared/domain/proxy-url';
import { cpus } from 'node:os';
import { isIP } from 'node:net';
import { resolve, join } from 'node:path';
import { z } from 'zod';
import { parseSecretsKey } from './secrets-key';

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
  /** FFMPEG_PATH: the ffmpeg that encodes webm and gif videos; null: `ffmpeg` on the PATH. */
  ffmpegPath!: string | null;
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
  /** ALERT_LINK_DAYS: how long the signed image, diff and compare links in notifications open (from the event). */
  alertLinkDays!: number;
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
  /**
   * S3_FIRST_BYTE_TIMEOUT_MS: how long a read (a download's, a render's or a thumbnail's object, a lookup) may wait
   * for the store's answer to begin, at most timeoutMs: a store that accepts connections and then says nothing
   * (frozen) is `unavailable` after this, not after the whole call's bound.
   */
  firstByteTimeoutMs: number;
}

export class ConfigError extends Error {}

/**
 * The default cap per core when CAPTURE_CONCURRENCY is unset: high enough that waiting pages never leave the
 * cores idle (the admission keeps the real number lower when the cores are busy). Measured: docs/benchmark.md
 * ("What the numbers say", Concurrency, and run (e)). Here rather than in adapters/capture: config imports nothing above it.
 */
export const DEFAULT_CONCURRENCY_PER_CORE = 8;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/*
 * The environment as one zod schema (ENV below): each variable's schema turns its text (undefined when unset) into
 * its value, its default applied, or into an issue. Every issue names its variable: loadConfig reports them all at
 * once, each as "<VARIABLE> <what is wrong> (got "<value>")", so a deployment with two typos learns of both.
 */

/** An environment variable's text: absent, or a string (blank counts as unset for every variable). */
const text = z.string().optional();
type Issue = { addIssue(issue: { code: 'custom'; message: string }): void };

/** Records `message` (the variable's name is put in front of it by loadConfig) and yields nothing. */
function invalid(ctx: Issue, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

const isUnset = (raw: string | undefined): raw is undefined => raw === undefined || raw.trim() === '';

function intValue(raw: string, min: number, max: number, ctx: Issue): number {
  const v = raw.trim();
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) return invalid(ctx, `must be an integer between ${min} and ${max} (got "${raw}")`);
  return Number(v);
}

const int = (fallback: number, min: number, max: number) => text.transform((raw, ctx) => (isUnset(raw) ? fallback : intValue(raw, min, max, ctx)));
const optionalInt = (min: number, max: number) => text.transform((raw, ctx) => (isUnset(raw) ? null : intValue(raw, min, max, ctx)));

const bool = (fallback: boolean) =>
  text.transform((raw, ctx) => {
    if (isUnset(raw)) return fallback;
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    return invalid(ctx, `must be true or false (got "${raw}")`);
  });

/** Trimmed text, or `fallback` when unset. */
const str = <F extends string | null>(fallback: F) => text.transform((raw) => (isUnset(raw) ? fallback : raw.trim()));

/** One of `values` (compared in lower case when `lower`), or `fallback` when unset. */
const oneOf = <const V extends readonly string[]>(values: V, fallback: V[number], message: string, lower = false) =>
  text.transform((raw, ctx): V[number] => {
    if (isUnset(raw)) return fallback;
    const v = lower ? raw.trim().toLowerCase() : raw.trim();
    return values.includes(v) ? v : invalid(ctx, `${message} (got "${raw}")`);
  });

/** An upstream proxy URL, or null when unset. It may hold a password: an issue names the rule, never the value. */
const proxyUrl = text.transform((raw, ctx) => {
  if (isUnset(raw)) return null;
  return parseProxyUrl(raw.trim()) ? raw.trim() : invalid(ctx, PROXY_URL_RULE);
});

/** A comma-separated list, each entry trimmed, empty ones left out. */
const list = text.transform((raw) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const url = (protocols: string[]) =>
  text.transform((raw, ctx) => {
    if (isUnset(raw)) return null;
    let parsed: URL;
    try {
      parsed = new URL(raw.trim());
    } catch {
      return invalid(ctx, `must be a URL (${protocols.join(' or ')})`);
    }
    if (!protocols.includes(parsed.protocol)) return invalid(ctx, `must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
    return raw.trim();
  });

/**
 * TRUST_PROXY: `false` (default), `true` = one proxy hop, a hop count, or a comma list of the proxies'
 * addresses/CIDRs. `true` never means "believe every hop": the leftmost X-Forwarded-For entry is whatever
 * the client sent, and believing it would let anyone pick a fresh address for every guess of a password
 * or token and walk around the per-address limits.
 */
const trustProxy = text.transform((input, ctx): false | number | string[] => {
  const raw = input?.trim() ?? '';
  if (raw === '') return false;
  if (/^\d+$/.test(raw)) return intValue(raw, 0, 10, ctx) || false;
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
      return invalid(ctx, `must be true, false, a number of proxy hops (0..10), or a comma list of proxy addresses/CIDRs (got "${raw}")`);
    }
  }
  return entries;
});

/**
 * Failed guesses at /metrics are not throttled (a scraper with a stale token must not lock itself out), so the
 * token itself has to be unguessable.
 */
const metricsToken = text.transform((input, ctx) => {
  const raw = input?.trim() ?? '';
  if (raw === '') return null;
  if (!/^[\x21-\x7e]{16,}$/.test(raw)) return invalid(ctx, 'must be at least 16 visible ASCII characters without spaces (e.g. `openssl rand -hex 32`)');
  return raw;
});

const urlAllowlist = text.transform((raw, ctx) => {
  const origins: string[] = [];
  for (const entry of (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    let origin = 'null';
    try {
      origin = new URL(entry).origin;
    } catch {
      // reported below
    }
    if (origin === 'null') return invalid(ctx, `entries must be origins like http://intranet.local:8080 (got "${entry}")`);
    origins.push(origin);
  }
  return origins;
});

const secretsKey = text.transform((input, ctx) => {
  const raw = input?.trim() ?? '';
  if (raw === '') return null;
  return parseSecretsKey(raw) ?? invalid(ctx, 'must be 32 bytes as 64 hex characters or base64 (e.g. `openssl rand -base64 32`)');
});

const retryDelays = text.transform((input, ctx) => {
  const raw = input?.trim() || '5,30,120,600,3600,21600';
  const delays = raw.split(',').map((part) => Number(part.trim()));
  if (delays.length > 20 || delays.some((d) => !Number.isInteger(d) || d < 0 || d > 7 * 24 * 3600)) {
    return invalid(ctx, `must be up to 20 whole numbers of seconds (0..604800), comma-separated (got "${raw}")`);
  }
  return delays;
});

/** S3_PREFIX: no leading slash, one trailing slash ("" for the bucket's root). */
const s3Prefix = text.transform((raw) => {
  const prefix = (raw ?? '').trim().replace(/^\/+/, '');
  return prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix;
});

const cores = Math.max(1, cpus().length);

/** Every variable the service reads (docs/configuration.md), with its default and its rule. */
const ENV = z.object({
  PORT: int(3000, 0, 65535),
  HOST: str('0.0.0.0'),
  DATA_DIR: str('./data'),
  STORAGE_DIR: str(null),
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  REDIS_URL: url(['redis:', 'rediss:']),
  REDIS_KEY_PREFIX: str('screenshots'),
  PUBLIC_URL: url(['http:', 'https:']),
  ROLE: oneOf(['all', 'api', 'worker'], 'all', 'must be one of all, api, worker'),
  CHROME_PATH: str(null),
  FFMPEG_PATH: str(null),
  ALLOW_PRIVATE_NETWORKS: bool(false),
  URL_ALLOWLIST: urlAllowlist,
  CAPTURE_PROXY: proxyUrl,
  CAPTURE_PROXY_BYPASS: list,
  LOG_LEVEL: oneOf(LOG_LEVELS, 'info', `must be one of ${LOG_LEVELS.join(', ')}`, true),
  CAPTURE_CONCURRENCY: int(DEFAULT_CONCURRENCY_PER_CORE * cores, 1, 256),
  CAPTURE_BROWSERS: int(cores, 1, 64),
  CAPTURE_TIMEOUT_MS: int(30000, 1000, 600000),
  CAPTURE_MAX_HEIGHT: int(32768, 240, 100000),
  CAPTURE_RECYCLE_AFTER: int(200, 1, 1000000),
  CAPTURE_PREWARM: bool(true),
  CAPTURE_FAST_PNG: bool(true),
  SCENARIO_TIMEOUT_MS: int(120000, 1000, 3600000),
  SCENARIO_STEP_TIMEOUT_MS: int(10000, 100, 600000),
  SCHEDULE_TICK_MS: int(5000, 100, 3600000),
  JOB_LOCK_MS: int(6000, 1000, 600000),
  SHUTDOWN_GRACE_MS: int(15000, 0, 600000),
  AUTH_FAILURE_LIMIT_PER_MINUTE: int(30, 1, 1000000),
  DASHBOARD_LIMIT_PER_MINUTE: int(600, 1, 1000000),
  SIGN_IN_LIMIT_PER_MINUTE: int(20, 1, 1000000),
  TRUST_PROXY: trustProxy,
  METRICS_TOKEN: metricsToken,
  SECRETS_KEY: secretsKey,
  RETENTION_DAYS: optionalInt(1, 36500),
  WEBHOOK_RETRY_DELAYS: retryDelays,
  WEBHOOK_LIMIT_PER_MINUTE: int(600, 1, 1000000),
  WEBHOOK_POLL_MS: int(1000, 50, 600000),
  SMTP_URL: url(['smtp:', 'smtps:']),
  MAIL_FROM: str('Screenshot service <screenshots@localhost>'),
  ALERT_LINK_DAYS: int(30, 1, 3650),
  STORAGE_DRIVER: oneOf(['local', 's3'], 'local', 'must be local or s3', true),
  S3_BUCKET: str(null),
  S3_ENDPOINT: url(['http:', 'https:']),
  S3_REGION: str('us-east-1'),
  S3_ACCESS_KEY_ID: str(null),
  S3_SECRET_ACCESS_KEY: str(null),
  S3_FORCE_PATH_STYLE: bool(false),
  S3_PREFIX: s3Prefix,
  S3_TIMEOUT_MS: int(30000, 100, 600000),
  S3_FIRST_BYTE_TIMEOUT_MS: int(3000, 100, 600000),
});

/** The variables ENV reads (docs/configuration.md documents each one). */
export const ENV_VARIABLES = Object.keys(ENV.shape);

type Env = z.output<typeof ENV>;

/** Rules across variables, checked once each variable is valid on its own. */
function combinationProblems(e: Env): string[] {
  const problems: string[] = [];
  if (e.ROLE !== 'all' && (!e.DATABASE_URL || !e.REDIS_URL)) {
    problems.push(`ROLE=${e.ROLE} needs DATABASE_URL and REDIS_URL: separate api and worker processes share work through PostgreSQL and Redis`);
  }
  if (e.STORAGE_DRIVER === 's3') {
    if (!e.S3_BUCKET) problems.push('STORAGE_DRIVER=s3 needs S3_BUCKET (the bucket screenshots are stored in)');
    if ((e.S3_ACCESS_KEY_ID === null) !== (e.S3_SECRET_ACCESS_KEY === null)) {
      problems.push('Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (then the AWS SDK finds credentials itself)');
    }
  }
  return problems;
}

function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: string };
    return manifest.version ?? '1.0.0';
  } catch {
    return '1.0.0';
  }
}

/**
 * Reads every setting from `env` through ENV. Throws one ConfigError listing every problem, each naming its
 * variable ("PORT must be an integer between 0 and 65535 (got "70000")"), so a typo fails the boot, not a capture.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = ENV.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')} ${issue.message}`).join('; '));
  }
  const e = parsed.data;
  const problems = combinationProblems(e);
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  const dataDir = resolve(e.DATA_DIR);
  return {
    secretsKey: e.SECRETS_KEY,
    retentionDays: e.RETENTION_DAYS,
    webhookRetryDelays: e.WEBHOOK_RETRY_DELAYS,
    webhookLimitPerMinute: e.WEBHOOK_LIMIT_PER_MINUTE,
    webhookPollMs: e.WEBHOOK_POLL_MS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    alertLinkDays: e.ALERT_LINK_DAYS,
    storageDriver: e.STORAGE_DRIVER,
    s3:
      e.STORAGE_DRIVER === 's3'
        ? {
            bucket: e.S3_BUCKET!,
            endpoint: e.S3_ENDPOINT,
            region: e.S3_REGION,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
            prefix: e.S3_PREFIX,
            timeoutMs: e.S3_TIMEOUT_MS,
            firstByteTimeoutMs: e.S3_FIRST_BYTE_TIMEOUT_MS,
          }
        : null,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    storageDir: resolve(e.STORAGE_DIR ?? join(dataDir, 'screenshots')),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    publicUrl: e.PUBLIC_URL ? e.PUBLIC_URL.replace(/\/+$/, '') : null,
    role: e.ROLE,
    chromePath: e.CHROME_PATH,
    ffmpegPath: e.FFMPEG_PATH,
    allowPrivateNetworks: e.ALLOW_PRIVATE_NETWORKS,
    urlAllowlist: e.URL_ALLOWLIST,
    captureProxy: e.CAPTURE_PROXY,
    captureProxyBypass: e.CAPTURE_PROXY_BYPASS,
    logLevel: e.LOG_LEVEL,
    captureConcurrency: e.CAPTURE_CONCURRENCY,
    captureBrowsers: e.CAPTURE_BROWSERS,
    captureTimeoutMs: e.CAPTURE_TIMEOUT_MS,
    captureMaxHeight: e.CAPTURE_MAX_HEIGHT,
    captureRecycleAfter: e.CAPTURE_RECYCLE_AFTER,
    capturePrewarm: e.CAPTURE_PREWARM,
    captureFastPng: e.CAPTURE_FAST_PNG,
    scenarioTimeoutMs: e.SCENARIO_TIMEOUT_MS,
    scenarioStepTimeoutMs: e.SCENARIO_STEP_TIMEOUT_MS,
    scheduleTickMs: e.SCHEDULE_TICK_MS,
    jobLockMs: e.JOB_LOCK_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    authFailureLimitPerMinute: e.AUTH_FAILURE_LIMIT_PER_MINUTE,
    dashboardLimitPerMinute: e.DASHBOARD_LIMIT_PER_MINUTE,
    signInLimitPerMinute: e.SIGN_IN_LIMIT_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    metricsToken: e.METRICS_TOKEN,
    apiVersion: packageVersion(),
  };
}
