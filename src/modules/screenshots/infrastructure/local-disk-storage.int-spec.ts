import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('stages, places and reads a file; the staging area is empty afterwards', async () => {
    const staged = await storage.stage(Buffer.from('png bytes'));
    storage.placeSync(staged, 'screenshots/1/a.png');
    expect((await storage.read('screenshots/1/a.png'))?.toString()).toBe('png bytes');
    expect(readdirSync(join(dir, '.tmp'))).toEqual([]);
  });

  it('refuses keys outside its area or climbing out of it', async () => {
    await expect(storage.read('other/a.png')).rejects.toThrow('outside the screenshots area');
    await expect(storage.read('screenshots/../../etc/passwd')).rejects.toThrow('invalid storage key');
  });

  it('deleteArea removes a website folder with everything in it, and nothing else; never the whole area', async () => {
    for (const key of ['screenshots/1/2/3.png', 'screenshots/1/2/3.thumb.webp', 'screenshots/1/20/4.png'])
      storage.placeSync(await storage.stage(Buffer.from(key)), key);
    await storage.deleteArea('screenshots/1/2/');
    expect(existsSync(join(dir, '1', '2'))).toBe(false);
    expect(await storage.exists('screenshots/1/20/4.png')).toBe(true);
    await storage.deleteArea('screenshots/9/9/'); // nothing there: no error
    await expect(storage.deleteArea('screenshots/')).rejects.toThrow('not a website area');
    await expect(storage.deleteArea('screenshots/1/20/4.png')).rejects.toThrow('not a website area');
    await expect(storage.deleteArea('screenshots/../')).rejects.toThrow();
    expect(await storage.exists('screenshots/1/20/4.png')).toBe(true);
  });

  describe('sweeping staged files left by an interrupted process', () => {
    it('removes staged files older than the limit and keeps younger ones and placed files', async () => {
      const stale = await storage.stage(Buffer.from('left by a crash'));
      const live = await storage.stage(Buffer.from('being captured now'));
      const placed = await storage.stage(Buffer.from('stored'));
      storage.placeSync(placed, 'screenshots/7/b.png');
      age(stale.tempPath, STALE_STAGING_MS + 60_000);
      age(live.tempPath, STALE_STAGING_MS - 60_000);

      expect(await storage.sweepStaging(Date.now())).toBe(1);
      expect(existsSync(stale.tempPath)).toBe(false);
      expect(existsSync(live.tempPath)).toBe(true);
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
      const stale = await storage.stage(Buffer.from('left by a crash'));
      age(stale.tempPath, STALE_STAGING_MS * 3);
      await storage.onApplicationBootstrap();
      expect(existsSync(stale.tempPath)).toBe(false);
    });
  });
});
