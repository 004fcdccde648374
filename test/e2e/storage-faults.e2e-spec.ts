import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '../../src/config/app-config';
import { LocalDiskStorage } from '../../src/modules/screenshots/infrastructure/local-disk-storage';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
const isRoot = process.getuid?.() === 0;

/** Starts `node dist/main.js` and returns its exit code and everything it printed (it is expected to stop). */
function startExpectingExit(env: Record<string, string>, user?: string): Promise<{ code: number | null; output: string }> {
  const [command, args] = user ? ['runuser', ['-u', user, '--', process.execPath, MAIN]] : [process.execPath, [MAIN]];
  const child = spawn(command, args, {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.on('exit', (code) => (clearTimeout(timer), resolve({ code, output }))));
}

describe('storage faults', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storage-faults-'));
    chmodSync(dir, 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a STORAGE_DIR that cannot be created stops the start with one line naming STORAGE_DIR', async () => {
    writeFileSync(join(dir, 'a-file'), 'not a directory');
    const storageDir = join(dir, 'a-file', 'screenshots');
    const { code, output } = await startExpectingExit({ DATA_DIR: join(dir, 'data'), STORAGE_DIR: storageDir });
    expect(code).toBe(2);
    expect(output.trim()).toBe(
      `configuration error: STORAGE_DIR ${storageDir} is not writable by this process (ENOTDIR): create it and give this user write access, or set STORAGE_DIR to a directory it can write`,
    );
  });

  // The service refuses an existing directory it may not write (with or without its .tmp/ inside). Root may
  // write anywhere, so as root the service runs as `nobody`; otherwise the directory is simply made read-only.
  it.each([['without'], ['with']])('an existing but unwritable STORAGE_DIR (%s its .tmp/) stops the start with one line naming it', async (tmp) => {
    const dataDir = join(dir, 'data');
    const storageDir = join(dir, 'screenshots');
    mkdirSync(dataDir, { mode: 0o777 });
    chmodSync(dataDir, 0o777);
    mkdirSync(storageDir);
    if (tmp === 'with') mkdirSync(join(storageDir, '.tmp'));
    if (!isRoot) for (const d of [storageDir, join(storageDir, '.tmp')]) if (tmp === 'with' || d === storageDir) chmodSync(d, 0o555);
    const { code, output } = await startExpectingExit({ DATA_DIR: dataDir, STORAGE_DIR: storageDir }, isRoot ? 'nobody' : undefined);
    expect(output.trim()).toMatch(new RegExp(`^configuration error: STORAGE_DIR ${storageDir} is not writable by this process \\((EACCES|EPERM)\\)`));
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(code).toBe(2);
    if (!isRoot) chmodSync(storageDir, 0o755);
  });

  // A full disk needs a small filesystem of its own; mounting one takes root (CI runs as root).
  (isRoot ? it : it.skip)('a write that fails on a full disk leaves no .part behind (needs root to mount a 64 KiB tmpfs)', async () => {
    const mountPoint = join(dir, 'small');
    mkdirSync(mountPoint);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mountPoint]);
    try {
      const storage = new LocalDiskStorage({ storageDir: mountPoint } as AppConfig);
      await storage.put('screenshots/1/1/1.png', Buffer.alloc(16 * 1024, 1)); // fits
      for (let i = 0; i < 3; i++) await expect(storage.put(`screenshots/1/1/${i + 2}.png`, Buffer.alloc(256 * 1024, 1))).rejects.toThrow(/ENOSPC/);
      expect(readdirSync(join(mountPoint, '.tmp'))).toEqual([]);
      expect(readdirSync(join(mountPoint, '1', '1'))).toEqual(['1.png']);
      expect(await storage.read('screenshots/1/1/1.png')).toEqual(Buffer.alloc(16 * 1024, 1));
    } finally {
      execFileSync('umount', [mountPoint]);
    }
  });
});
