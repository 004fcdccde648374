import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describeStorageContract } from '../../../../test/support/storage-contract';
import { AppConfig } from '../../../config/app-config';
import { LocalDiskStorage, STALE_STAGING_MS } from './local-disk-storage';

describe('LocalDiskStorage', () => {
  let dir: string;
  let storage: LocalDiskStorage;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storage-spec-'));
    storage = new LocalDiskStorage({ storageDir: dir } as AppConfig);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const age = (path: string, ms: number) => {
    const when = (Date.now() - ms) / 1000;
    utimesSync(path, when, when);
  };

  it('writes through the staging area, which is empty afterwards; files live under STORAGE_DIR by key', async () => {
    await storage.put('screenshots/1/a.png', Buffer.from('png bytes'));
    expect((await storage.read('screenshots/1/a.png'))?.toString()).toBe('png bytes');
    expect(readdirSync(join(dir, '.tmp'))).toEqual([]);
    expect(existsSync(join(dir, '1', 'a.png'))).toBe(true);
  });

  it('refuses keys outside its area or climbing out of it, naming why', async () => {
    await expect(storage.read('other/a.png')).rejects.toThrow('outside the screenshots area');
    await expect(storage.read('screenshots/../../etc/passwd')).rejects.toThrow('invalid storage key');
  });

  it('deleteArea removes the website folder itself', async () => {
    await storage.put('screenshots/1/2/3.png', Buffer.from('x'));
    await storage.deleteArea('screenshots/1/2/');
    expect(existsSync(join(dir, '1', '2'))).toBe(false);
  });

  /** A part file as a process killed between writing and renaming it leaves it. */
  const leftPart = (content: string): string => {
    const path = join(dir, '.tmp', `${randomUUID()}.part`);
    writeFileSync(path, content);
    return path;
  };

  describe('sweeping staged files left by an interrupted process', () => {
    it('removes staged files older than the limit and keeps younger ones and placed files', async () => {
      const stale = leftPart('left by a crash');
      const live = leftPart('being captured now');
      await storage.put('screenshots/7/b.png', Buffer.from('stored'));
      age(stale, STALE_STAGING_MS + 60_000);
      age(live, STALE_STAGING_MS - 60_000);

      expect(await storage.sweepStaging(Date.now())).toBe(1);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
      expect(await storage.exists('screenshots/7/b.png')).toBe(true);
    });

    it('leaves files it did not stage alone', async () => {
      const foreign = join(dir, '.tmp', 'README');
      writeFileSync(foreign, 'not ours');
      age(foreign, STALE_STAGING_MS * 2);
      expect(await storage.sweepStaging(Date.now())).toBe(0);
      expect(existsSync(foreign)).toBe(true);
    });

    it('runs at application start', async () => {
      const stale = leftPart('left by a crash');
      age(stale, STALE_STAGING_MS * 3);
      await storage.onApplicationBootstrap();
      expect(existsSync(stale)).toBe(false);
    });
  });
});

const contractDir = mkdtempSync(join(tmpdir(), 'storage-contract-'));
afterAll(() => rmSync(contractDir, { recursive: true, force: true }));
describeStorageContract('LocalDiskStorage', async () => new LocalDiskStorage({ storageDir: contractDir } as AppConfig));
