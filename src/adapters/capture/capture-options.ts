import { accessSync, constants, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { delimiter, join } from 'node:path';
import { DEFAULT_CONCURRENCY_PER_CORE } from '../../config/app-config';

export interface CaptureSettings {
  /** Explicit browser binary (CHROME_PATH); otherwise findChrome() looks for one. */
  chromePath?: string | null;
  /** FFMPEG_PATH: the ffmpeg that encodes webm and gif videos (scroll-video.ts); otherwise `ffmpeg` on the PATH. */
  ffmpegPath?: string | null;
  /**
   * The most captures running at once across the whole pool (CAPTURE_CONCURRENCY); below it the admission
   * sizes concurrency by CPU and memory (admission.ts).
   */
  concurrency: number;
  /** Long-lived browsers in the pool; each serves several isolated contexts. */
  browsers: number;
  /** Budget for one whole capture, from fresh context to PNG. */
  timeoutMs: number;
  /** Full-page captures are cut at this many CSS pixels, so an endless page still yields a bounded PNG. */
  maxFullPageHeight: number;
  /** A browser is replaced after this many captures, to shed leaks in long-running Chromium. */
  recycleAfter: number;
  /** wait_until 'network_idle': the network must be quiet this long after 'load'. */
  networkIdleMs: number;
  /**
   * The cap of every wait after 'load' (stable and network_idle): pages that never settle (polling,
   * analytics, websockets, endless timer chains) are captured after at most this long.
   */
  networkIdleMaxWaitMs: number;
  /**
   * wait_until 'stable': how long the page must stay still (no request, short timer, mutation, decode)
   * before it is captured. How it was measured: docs/how-a-capture-runs.md, "When the capture is taken".
   */
  settleWindowMs: number;
  /**
   * CAPTURE_FAST_PNG: Chromium's fast PNG encoder (it compresses less to encode faster) instead of its compact
   * one. The compact encoder is the largest single cost a capture adds to Chromium's browser process; the fast one
   * makes larger files, most of all on flat pages that compress very well either way (figures: docs/benchmark.md).
   * On by default: this service is sized by CPU, and storage is cheap; `false` for the smaller files.
   */
  fastPngEncoding: boolean;
  /**
   * CAPTURE_PREWARM: each browser keeps one fresh context with an open blank tab ready for the next capture, so a
   * capture does not wait for its tab's renderer to start, the largest single step of a lone capture (figures:
   * docs/benchmark.md). Costs one idle renderer per browser. Default true.
   */
  prewarm: boolean;
  /**
   * ALLOW_PRIVATE_NETWORKS: the egress proxy stops refusing loopback, private, link-local and other
   * non-public addresses (intranet deployments, tests). Default false.
   */
  allowPrivateNetworks: boolean;
  /** URL_ALLOWLIST: exact origins ("http://intranet.local:8080") whose address check is skipped. Default []. */
  urlAllowlist: string[];
}

export function defaultCaptureSettings(): CaptureSettings {
  const cores = Math.max(1, cpus().length);
  return {
    concurrency: DEFAULT_CONCURRENCY_PER_CORE * cores,
    browsers: cores,
    timeoutMs: 30_000,
    maxFullPageHeight: 32_768,
    recycleAfter: 200,
    networkIdleMs: 500,
    networkIdleMaxWaitMs: 3_000,
    settleWindowMs: 100,
    fastPngEncoding: true,
    prewarm: true,
    allowPrivateNetworks: false,
    urlAllowlist: [],
  };
}

/** Defaults filled in and every number checked, so a bad env value fails at boot, not at the first capture. */
export function resolveCaptureSettings(overrides: Partial<CaptureSettings> = {}): CaptureSettings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const settings: CaptureSettings = { ...defaultCaptureSettings(), ...defined };
  const positive: (keyof CaptureSettings)[] = ['concurrency', 'browsers', 'timeoutMs', 'maxFullPageHeight', 'recycleAfter'];
  for (const key of positive) {
    const value = settings[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new Error(`Capture setting ${key} must be a positive integer, got ${String(value)}`);
    }
  }
  for (const key of ['networkIdleMs', 'networkIdleMaxWaitMs', 'settleWindowMs'] as const) {
    const value = settings[key];
    if (!Number.isInteger(value) || value < 0) {
      throw new Error(`Capture setting ${key} must be a non-negative integer, got ${String(value)}`);
    }
  }
  for (const key of ['fastPngEncoding', 'prewarm', 'allowPrivateNetworks'] as const) {
    if (typeof settings[key] !== 'boolean') {
      throw new Error(`Capture setting ${key} must be a boolean, got ${String(settings[key])}`);
    }
  }
  if (!Array.isArray(settings.urlAllowlist) || !settings.urlAllowlist.every(isOrigin)) {
    throw new Error(`Capture setting urlAllowlist must list http(s) origins, got ${JSON.stringify(settings.urlAllowlist)}`);
  }
  return { ...settings, urlAllowlist: [...settings.urlAllowlist] };
}

function isOrigin(entry: unknown): boolean {
  if (typeof entry !== 'string') return false;
  try {
    const url = new URL(entry);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

export interface ChromeSearchPlaces {
  /** Checked first, in order. */
  absolutePaths: string[];
  /** Then looked up in each directory of pathEnv, in order. */
  commandNames: string[];
  pathEnv: string;
}

const DEFAULT_SEARCH_PLACES: ChromeSearchPlaces = {
  // The headless shell first: much faster per capture than full Chromium in new headless mode (figures: docs/benchmark.md).
  absolutePaths: ['/usr/bin/chromium-headless-shell'],
  commandNames: ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome'],
  pathEnv: process.env.PATH ?? '',
};

export const CHROME_INSTALL_HINT =
  'Install Chromium headless shell: on Debian/Ubuntu run (as root) ' +
  '`apt-get install -y chromium-headless-shell fonts-liberation fonts-noto-cjk fonts-noto-color-emoji`, ' +
  'or point CHROME_PATH at a Chromium/Chrome binary.';

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findChrome(explicit?: string | null, places: ChromeSearchPlaces = DEFAULT_SEARCH_PLACES): string {
  if (explicit) {
    // An explicit path that does not work is a configuration mistake: say so rather than silently falling back.
    if (!isExecutableFile(explicit)) {
      throw new Error(`CHROME_PATH=${explicit} is not an executable file. ${CHROME_INSTALL_HINT}`);
    }
    return explicit;
  }
  const dirs = places.pathEnv.split(delimiter).filter((dir) => dir.length > 0);
  const candidates = [...places.absolutePaths, ...places.commandNames.flatMap((name) => dirs.map((dir) => join(dir, name)))];
  const found = candidates.find(isExecutableFile);
  if (!found) {
    throw new Error(`No Chromium found (looked for ${places.commandNames.join(', ')} in PATH). ${CHROME_INSTALL_HINT}`);
  }
  return found;
}
