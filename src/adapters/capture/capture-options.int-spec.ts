import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import { defaultCaptureSettings, findChrome, resolveCaptureSettings } from './capture-options';

describe('resolveCaptureSettings', () => {
  it('defaults to a cap of eight captures per core (self-sized below it, see admission.ts) over one browser per core', () => {
    const cores = cpus().length;

    expect(resolveCaptureSettings()).toEqual({
      concurrency: 8 * cores,
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
    });
  });

  it('keeps defaults for overrides left undefined', () => {
    const settings = resolveCaptureSettings({ browsers: 3, timeoutMs: undefined, chromePath: null });

    expect(settings.browsers).toBe(3);
    expect(settings.timeoutMs).toBe(defaultCaptureSettings().timeoutMs);
  });

  it('rejects numbers that cannot work', () => {
    expect(() => resolveCaptureSettings({ concurrency: 0 })).toThrow('concurrency must be a positive integer');
    expect(() => resolveCaptureSettings({ timeoutMs: 1.5 })).toThrow('timeoutMs');
    expect(() => resolveCaptureSettings({ networkIdleMs: -1 })).toThrow('networkIdleMs');
    expect(() => resolveCaptureSettings({ settleWindowMs: 2.5 })).toThrow('settleWindowMs');
  });

  it('refuses private networks by default and checks the allowlist at boot', () => {
    expect(resolveCaptureSettings({ urlAllowlist: ['http://intranet.local:8080'] })).toMatchObject({
      allowPrivateNetworks: false,
      urlAllowlist: ['http://intranet.local:8080'],
    });
    expect(() => resolveCaptureSettings({ urlAllowlist: ['intranet.local'] })).toThrow('urlAllowlist');
    expect(() => resolveCaptureSettings({ urlAllowlist: ['ftp://files.local'] })).toThrow('urlAllowlist');
    expect(() => resolveCaptureSettings({ allowPrivateNetworks: 'yes' as unknown as boolean })).toThrow('allowPrivateNetworks must be a boolean');
  });
});

describe('findChrome', () => {
  let dir: string;
  const fakeBinary = (name: string): string => {
    const path = join(dir, name);
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o755);
    return path;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'find-chrome-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('returns an explicit path that is executable, and refuses one that is not', () => {
    const binary = fakeBinary('my-chrome');

    expect(findChrome(binary)).toBe(binary);
    expect(() => findChrome(join(dir, 'missing'))).toThrow(/CHROME_PATH=.*missing is not an executable file/);
  });

  it('prefers the headless shell, then the other names in PATH order', () => {
    const places = { absolutePaths: [], commandNames: ['chromium-headless-shell', 'chromium'], pathEnv: dir };
    const chromium = fakeBinary('chromium');
    expect(findChrome(undefined, places)).toBe(chromium);

    const shell = fakeBinary('chromium-headless-shell');
    expect(findChrome(undefined, places)).toBe(shell);
  });

  it('says how to install Chromium when there is none', () => {
    const places = { absolutePaths: [join(dir, 'nope')], commandNames: ['chromium'], pathEnv: dir };

    expect(() => findChrome(undefined, places)).toThrow(/apt-get install -y chromium-headless-shell/);
  });
});
