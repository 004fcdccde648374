import { createReadStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join, normalize, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { ScreenshotStorage } from '../application/ports';

/** The storage area's name in keys; the adapter maps it to STORAGE_DIR. */
const AREA = 'screenshots/';
/**
 * Renders' cache objects (modules/renders): their own area, kept in `.renders/` under STORAGE_DIR so the orphan
 * sweep's walk of the screenshots area (which would find no screenshot row for them) never sees them.
 */
const RENDERS_AREA = 'renders/';
const RENDERS_DIR = '.renders';
/** Batches' files (modules/batches): their own area too, in `.batches/`, out of the orphan sweep's walk likewise. */
const BATCHES_AREA = 'batches/';
const BATCHES_DIR = '.batches';

/**
 * A staged file is placed or discarded within seconds of being written; one older than this belongs to a process
 * that died between the two (crash, kill -9, OOM). The margin is wide because instances of a scaled-out
 * deployment share STORAGE_DIR and must never sweep each other's live staging files.
 */
export const STALE_STAGING_MS = 60 * 60 * 1000;

/** STORAGE_DIR cannot be used; the message names the setting, the directory and what to do, in one line. */
export class StorageDirUnusableError extends Error {}

/**
 * Makes sure STORAGE_DIR (and its `.tmp/`) exists and this process can write there, before anything is
 * captured: a worker that cannot store would otherwise take jobs and fail each of them after three attempts.
 * Run at start, outside Nest, so the operator reads one line instead of a stack trace.
 */
export function checkStorageDir(storageDir: string): void {
  const tmpDir = join(storageDir, '.tmp');
  const probe = join(tmpDir, `write-check-${process.pid}-${randomUUID()}.part`);
  try {
    mkdirSync(tmpDir, { recursive: true });
    writeFileSync(probe, 'ok', { flag: 'wx' });
    rmSync(probe, { force: true });
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    throw new StorageDirUnusableError(
      `STORAGE_DIR ${storageDir} is not writable by this process (${code ?? message}): create it and give this user write access, or set STORAGE_DIR to a directory it can write`,
    );
  }
}

/**
 * Screenshot files (PNGs and their thumbnails) on local disk (or a shared volume) under STORAGE_DIR. Writes go
 * to `.tmp/` inside the same directory tree and are renamed into place, so a reader never sees a half-written file.
 */
@Injectable()
export class LocalDiskStorage extends ScreenshotStorage implements OnApplicationBootstrap {
  private readonly logger = new Logger(LocalDiskStorage.name);
  private readonly root: string;
  private readonly tmpDir: string;

  constructor(config: AppConfig) {
    super();
    this.root = config.storageDir;
    this.tmpDir = join(this.root, '.tmp');
    mkdirSync(this.tmpDir, { recursive: true });
  }

  async onApplicationBootstrap(): Promise<void> {
    // File times are the real clock's, so this compares with the real clock, not the app's injectable one.
    const removed = await this.sweepStaging(Date.now());
    if (removed > 0) this.logger.warn(`removed ${removed} staged file(s) left by an interrupted process`);
  }

  /** Deletes staged files older than STALE_STAGING_MS (relative to `nowMs`); returns how many it removed. */
  async sweepStaging(nowMs: number): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.tmpDir).catch(() => [] as string[])) {
      if (!name.endsWith('.part')) continue;
      const path = join(this.tmpDir, name);
      const info = await stat(path).catch(() => null);
      if (!info?.isFile() || nowMs - info.mtimeMs < STALE_STAGING_MS) continue;
      await rm(path, { force: true });
      removed += 1;
    }
    return removed;
  }

  private pathOf(key: string): string {
    const area = [AREA, RENDERS_AREA, BATCHES_AREA].find((a) => key.startsWith(a));
    if (!area) throw new Error('storage key outside the screenshots area');
    const relative = normalize(key.slice(area.length));
    if (relative.startsWith('..') || relative.startsWith(sep) || relative.includes(`${sep}..${sep}`)) throw new Error('invalid storage key');
    if (area === AREA) return join(this.root, relative);
    return join(this.root, area === RENDERS_AREA ? RENDERS_DIR : BATCHES_DIR, relative);
  }

  /** Written to `.tmp/` in the same tree, then renamed into place: a reader sees the whole file or none. */
  async put(key: string, data: Buffer): Promise<void> {
    const target = this.pathOf(key);
    const tempPath = join(this.tmpDir, `${randomUUID()}.part`);
    try {
      await writeFile(tempPath, data, { flag: 'wx' });
      // The directory usually exists (a website's earlier captures made it): renamed first, made only when missing,
      // which spares a mkdir per file on the capture path.
      await rename(tempPath, target).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await mkdir(dirname(target), { recursive: true });
        await rename(tempPath, target);
      });
    } catch (err) {
      // A full disk leaves an empty or partial part behind; it would keep its space until the next start.
      await rm(tempPath, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  open(key: string): Readable {
    return createReadStream(this.pathOf(key));
  }

  isMissing(err: unknown): boolean {
    // A folder where the file would be is no file either (`exists` says false for it).
    const code = (err as NodeJS.ErrnoException | null)?.code;
    return code === 'ENOENT' || code === 'EISDIR';
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  async deleteArea(area: string): Promise<void> {
    if (!area.endsWith('/') || area === AREA) throw new Error('not a website area');
    await rm(this.pathOf(area), { recursive: true, force: true });
  }

  async *listOlderThan(before: Date): AsyncIterable<string[]> {
    // Depth-first over account/website folders; `.tmp/` holds staging parts, swept on their own at start.
    const walk = async function* (dir: string, key: string): AsyncGenerator<string> {
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (entry.name === '.tmp' || entry.name === RENDERS_DIR || entry.name === BATCHES_DIR) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) yield* walk(path, `${key}${entry.name}/`);
        else if (entry.isFile() && ((await stat(path).catch(() => null))?.mtimeMs ?? Infinity) < before.getTime()) yield `${key}${entry.name}`;
      }
    };
    let page: string[] = [];
    for await (const key of walk(this.root, AREA)) {
      page.push(key);
      if (page.length === 1000) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  /** For tests and diagnostics: where a key lives on this disk. */
  absolutePath(key: string): string {
    return this.pathOf(key);
  }
}
