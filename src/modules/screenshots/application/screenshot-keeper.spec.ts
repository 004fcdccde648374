import { Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { ScreenshotProps } from '../domain/screenshot';
import { CapturedScreenshot, ScreenshotRepository, ScreenshotStorage, ThumbnailRenderer } from './ports';
import { ScreenshotKeeper } from './screenshot-keeper';

/** Storage in memory; `failPut` makes a write fail like a full or read-only disk (or an unreachable bucket) would. */
class MemoryStorage extends ScreenshotStorage {
  readonly files = new Map<string, Buffer>();
  /** What happened, in order, across storage and repository (shared with MemoryScreenshots). */
  constructor(readonly log: string[] = []) {
    super();
  }
  failPut: (key: string) => boolean = () => false;
  failDelete = false;

  async put(key: string, data: Buffer): Promise<void> {
    if (this.failPut(key)) throw new Error(`cannot write ${key}`);
    this.log.push(`put ${key}`);
    this.files.set(key, data);
  }
  open(key: string): Readable {
    return Readable.from([this.files.get(key) ?? Buffer.alloc(0)]);
  }
  isMissing(): boolean {
    return false;
  }
  async read(key: string): Promise<Buffer | null> {
    return this.files.get(key) ?? null;
  }
  async exists(key: string): Promise<boolean> {
    return this.files.has(key);
  }
  async delete(key: string): Promise<void> {
    if (this.failDelete) throw new Error('storage unreachable');
    this.files.delete(key);
  }
  async deleteArea(area: string): Promise<void> {
    for (const key of [...this.files.keys()]) if (key.startsWith(area)) this.files.delete(key);
  }
  async *listOlderThan(): AsyncIterable<string[]> {
    yield [...this.files.keys()];
  }
}

/** The part of the repository the store uses; `failCommit` fails the transaction after the files were written. */
class MemoryScreenshots {
  readonly rows = new Map<number, ScreenshotProps>();
  failCommit = false;
  private nextId = 1;

  constructor(private readonly log: string[]) {}

  async reserveId(): Promise<number> {
    return this.nextId++;
  }
  async insert(shot: CapturedScreenshot, id: number, filePath: string): Promise<ScreenshotProps> {
    if (this.failCommit) throw new Error('commit failed');
    this.log.push(`insert ${id}`);
    const row: ScreenshotProps = {
      ...shot,
      id,
      filePath,
      scenarioId: shot.scenarioId ?? null,
      executionId: shot.executionId ?? null,
      status: 'success',
      fullPage: shot.fullPage ?? false,
      compareKey: shot.compareKey ?? null,
      ignoreBoxes: shot.ignoreBoxes ?? [],
      change: null,
      capture: shot.capture ?? null,
      textHash: shot.textHash ?? null,
    };
    this.rows.set(id, row);
    return row;
  }
  async findOwned(accountId: number, id: number): Promise<ScreenshotProps | null> {
    const row = this.rows.get(id);
    return row && row.accountId === accountId ? row : null;
  }
  async delete(id: number): Promise<void> {
    this.rows.delete(id);
  }
}

class FakeRenderer extends ThumbnailRenderer {
  calls = 0;
  fail = false;
  /** Resolves the render when set: lets a test act while a thumbnail is being made. */
  gate: Promise<void> | null = null;
  async render(png: Buffer): Promise<Buffer> {
    this.calls += 1;
    if (this.gate) await this.gate;
    if (this.fail) throw new Error('libvips says no');
    return Buffer.concat([Buffer.from('thumb of '), png]);
  }
}

const PNG = Buffer.from('png bytes');
const OWNER = { accountId: 7, websiteId: 3, jobId: 'job-1' };
const now = new Date('2030-01-01T00:00:00Z');

describe('ScreenshotKeeper', () => {
  let storage: MemoryStorage;
  let screenshots: MemoryScreenshots;
  let renderer: FakeRenderer;
  let store: ScreenshotKeeper;
  let warnings: string[];
  let errors: string[];
  let log: string[];

  beforeEach(() => {
    log = [];
    storage = new MemoryStorage(log);
    screenshots = new MemoryScreenshots(log);
    renderer = new FakeRenderer();
    store = new ScreenshotKeeper(storage, screenshots as unknown as ScreenshotRepository, renderer);
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    errors = [];
    jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
  });
  afterEach(() => jest.restoreAllMocks());

  const capture = () => store.store(OWNER, { data: PNG, format: 'png', width: 1280, height: 800 }, now);

  it('stores the file under its final key before the row commits, and no thumbnail is rendered on the capture path', async () => {
    const shot = await capture();
    expect(shot.filePath).toBe(`screenshots/7/3/${shot.id}.png`);
    expect([...storage.files.keys()]).toEqual([`screenshots/7/3/${shot.id}.png`]);
    expect(storage.files.get(shot.filePath)).toEqual(PNG);
    // A process killed between the two leaves a file without a row, never a row without its file.
    expect(log).toEqual([`put ${shot.filePath}`, `insert ${shot.id}`]);
    expect(renderer.calls).toBe(0);
  });

  it('every try of one file under a reservation writes the same key: a timed-out upload that lands later is rewritten, not an orphan', async () => {
    const reservation = {};
    const result = { data: PNG, format: 'png' as const, width: 1280, height: 800 };
    let tries = 0;
    storage.failPut = () => ++tries <= 2; // the store is away for two tries
    await expect(store.store(OWNER, result, now, reservation)).rejects.toThrow('cannot write');
    await expect(store.store(OWNER, result, now, reservation)).rejects.toThrow('cannot write');
    const shot = await store.store(OWNER, result, now, reservation);
    expect(shot.id).toBe(1); // the id reserved by the first try
    expect(tries).toBe(3);
    expect([...storage.files.keys()]).toEqual([`screenshots/7/3/1.png`]);
    // Without one, each store is a file of its own (another attempt's capture: other bytes, another key).
    expect((await capture()).id).toBe(2);
  });

  it('the first thumbnail request after a capture makes it from the PNG and stores it beside it', async () => {
    const shot = await capture();
    expect(await store.thumbnail(shot)).toEqual(Buffer.from('thumb of png bytes'));
    expect([...storage.files.keys()].sort()).toEqual([`screenshots/7/3/${shot.id}.png`, `screenshots/7/3/${shot.id}.thumb.webp`]);
  });

  it('a transaction that fails after the PNG was written leaves no file (and no row)', async () => {
    screenshots.failCommit = true;
    await expect(capture()).rejects.toThrow('commit failed');
    expect(storage.files.size).toBe(0);
    expect(screenshots.rows.size).toBe(0);
  });

  it('a PNG that cannot be written fails the store before any row is inserted', async () => {
    storage.failPut = (key) => key.endsWith('.png');
    await expect(capture()).rejects.toThrow(/cannot write/);
    expect(storage.files.size).toBe(0);
    expect(screenshots.rows.size).toBe(0);
  });

  it('a PDF: its thumbnail is written with it, and both go when the commit fails', async () => {
    const pdf = { data: Buffer.from('%PDF-'), format: 'pdf' as const, width: 794, height: 1123, preview: PNG };
    const shot = await store.store(OWNER, pdf, now);
    expect([...storage.files.keys()].sort()).toEqual([shot.filePath, shot.filePath.replace(/\.pdf$/, '.thumb.webp')]);
    storage.files.clear();
    screenshots.failCommit = true;
    await expect(store.store(OWNER, pdf, now)).rejects.toThrow('commit failed');
    expect(storage.files.size).toBe(0);
  });

  it('thumbnail(): made from the PNG when missing, stored, then read from storage without rendering again', async () => {
    renderer.fail = true;
    const shot = await capture();
    renderer.fail = false;
    renderer.calls = 0;
    const first = await store.thumbnail(shot);
    expect(first).toEqual(Buffer.from('thumb of png bytes'));
    expect(storage.files.get(`screenshots/7/3/${shot.id}.thumb.webp`)).toEqual(first);
    expect(await store.thumbnail(shot)).toEqual(first);
    expect(renderer.calls).toBe(1);
  });

  it('thumbnail(): simultaneous first requests render once', async () => {
    renderer.fail = true;
    const shot = await capture();
    renderer.fail = false;
    renderer.calls = 0;
    const results = await Promise.all([store.thumbnail(shot), store.thumbnail(shot), store.thumbnail(shot)]);
    expect(results.map(String)).toEqual(Array(3).fill('thumb of png bytes'));
    expect(renderer.calls).toBe(1);
  });

  it('thumbnail(): null when the PNG itself is missing; nothing is written', async () => {
    const shot = await capture();
    storage.files.clear();
    expect(await store.thumbnail(shot)).toBeNull();
    expect(storage.files.size).toBe(0);
  });

  it('thumbnail(): a screenshot deleted while its thumbnail was being made leaves no thumbnail file behind', async () => {
    renderer.fail = true;
    const shot = await capture();
    renderer.fail = false;
    let open!: () => void;
    renderer.gate = new Promise((resolve) => (open = resolve));
    const making = store.thumbnail(shot);
    await new Promise((r) => setImmediate(r));
    await store.remove(shot);
    open();
    await making;
    expect(storage.files.size).toBe(0);
  });

  it('remove(): the row, the PNG and the thumbnail go', async () => {
    const shot = await capture();
    const other = await capture();
    await store.thumbnail(shot);
    await store.thumbnail(other);
    await store.remove(shot);
    expect(screenshots.rows.has(shot.id)).toBe(false);
    expect([...storage.files.keys()].sort()).toEqual([other.filePath, other.filePath.replace(/\.png$/, '.thumb.webp')]);
  });

  it('remove(): storage that cannot delete leaves a logged orphan, never a row without its file, and does not fail the delete', async () => {
    const shot = await capture();
    storage.failDelete = true;
    await expect(store.remove(shot)).resolves.toBeUndefined();
    expect(screenshots.rows.has(shot.id)).toBe(false);
    expect(errors.some((e) => e.includes(`orphaned file ${shot.filePath}`))).toBe(true);
  });
});
