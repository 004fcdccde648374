import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { S3Server } from '../../../../test/support/s3-server';
import { describeStorageContract } from '../../../../test/support/storage-contract';
import { UnavailableError } from '../../../shared/domain/domain-error';
import { checkS3Bucket, S3Storage } from './s3-storage';
import { StorageUnavailableError } from '../application/ports';

/** The S3 adapter against a real S3-protocol server process (s3rver), never an SDK mock. */
const server = new S3Server('contract');
const settings = (prefix = 'tenant-a/') => ({
  bucket: server.bucket,
  endpoint: server.endpoint,
  region: 'us-east-1',
  accessKeyId: S3Server.ACCESS_KEY,
  secretAccessKey: S3Server.SECRET_KEY,
  forcePathStyle: true,
  prefix,
  timeoutMs: 30_000,
  firstByteTimeoutMs: 3_000,
});

beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.dispose();
});

describeStorageContract('S3Storage (s3rver)', async () => new S3Storage(settings()));

describe('S3Storage specifics', () => {
  it('keys are the file_path under S3_PREFIX, with the Content-Type of their extension', async () => {
    const storage = new S3Storage(settings('tenant-b/'));
    await storage.put('screenshots/3/4/5.webp', Buffer.from('RIFF....WEBP'));
    expect(await server.keys('tenant-b/')).toEqual(['tenant-b/screenshots/3/4/5.webp']);
    const head = await server.client().send(new HeadObjectCommand({ Bucket: server.bucket, Key: 'tenant-b/screenshots/3/4/5.webp' }));
    expect(head.ContentType).toBe('image/webp');
  });

  it('checkS3Bucket passes for the bucket and names the problem for a missing one', async () => {
    await expect(checkS3Bucket(settings())).resolves.toBeUndefined();
    await expect(checkS3Bucket({ ...settings(), bucket: 'no-such-bucket' })).rejects.toThrow(
      /S3 bucket no-such-bucket at http:\/\/127\.0\.0\.1:\d+ is not usable \(no such bucket\)/,
    );
  });

  it('an unreachable server is 503 unavailable within the client bounds, never a hang; back when it is', async () => {
    const storage = new S3Storage(settings());
    await storage.put('screenshots/1/1/1.png', Buffer.from('kept'));
    await server.stop();
    try {
      const started = Date.now();
      await expect(storage.read('screenshots/1/1/1.png')).rejects.toBeInstanceOf(UnavailableError);
      await expect(storage.exists('screenshots/1/1/1.png')).rejects.toThrow('Screenshot storage is unavailable; try again');
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await server.start();
    }
    expect((await storage.read('screenshots/1/1/1.png'))?.toString()).toBe('kept');
  });

  it('a frozen server (SIGSTOP: connections accepted, never answered) fails every call within S3_TIMEOUT_MS, a whole multipart upload too', async () => {
    const storage = new S3Storage({ ...settings(), timeoutMs: 1_000 });
    await storage.put('screenshots/1/1/2.png', Buffer.from('kept'));
    server.freeze();
    try {
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['read', () => storage.read('screenshots/1/1/2.png')],
        ['exists', () => storage.exists('screenshots/1/1/2.png')],
        ['put', () => storage.put('screenshots/1/1/3.png', Buffer.from('new'))],
        ['multipart put', () => storage.put('screenshots/1/1/4.png', Buffer.alloc(9 * 1024 * 1024, 1))],
        ['delete', () => storage.delete('screenshots/1/1/2.png')],
        ['deleteArea', () => storage.deleteArea('screenshots/1/1/')],
      ];
      const late: Array<[string, number]> = [];
      for (const [what, call] of calls) {
        const started = Date.now();
        await expect(call()).rejects.toThrow(new StorageUnavailableError());
        // The bound, plus a little for a loaded machine; was as long as the freeze (the SDK only warned).
        if (Date.now() - started >= 2_500) late.push([what, Date.now() - started]);
      }
      expect(late).toEqual([]);
      const checked = Date.now();
      await expect(checkS3Bucket({ ...settings(), timeoutMs: 1_000 })).rejects.toThrow(
        /^S3 bucket contract at http:\/\/127\.0\.0\.1:\d+ is not usable \(no answer within 1000 ms \(S3_TIMEOUT_MS\)\)/,
      );
      expect(Date.now() - checked).toBeLessThan(2_500);
      const opened = storage.open('screenshots/1/1/2.png');
      const started = Date.now();
      await expect(new Promise((resolve, reject) => opened.on('error', reject).on('end', resolve).resume())).rejects.toThrow(/no answer within 1000 ms/);
      expect(Date.now() - started).toBeLessThan(2_500);
    } finally {
      server.thaw();
    }
    // Back at once. (A call that timed out may still take effect once the server resumes: the frozen delete above
    // does; a frozen put leaves at most an unreferenced object, which the orphan sweep removes.)
    await storage.put('screenshots/1/1/5.png', Buffer.from('after'));
    expect((await storage.read('screenshots/1/1/5.png'))?.toString()).toBe('after');
  });

  it('reads from a frozen server fail at S3_FIRST_BYTE_TIMEOUT_MS, long before S3_TIMEOUT_MS (issue 43)', async () => {
    const storage = new S3Storage({ ...settings(), timeoutMs: 30_000, firstByteTimeoutMs: 1_000 });
    await storage.put('screenshots/1/2/1.png', Buffer.from('kept'));
    server.freeze();
    try {
      const late: Array<[string, number]> = [];
      for (const [what, call] of [
        ['read', () => storage.read('screenshots/1/2/1.png')],
        ['exists', () => storage.exists('screenshots/1/2/1.png')],
      ] as Array<[string, () => Promise<unknown>]>) {
        const started = Date.now();
        await expect(call()).rejects.toThrow(new StorageUnavailableError());
        // The 1 s bound plus a margin for a loaded machine; was S3_TIMEOUT_MS (30 s here).
        if (Date.now() - started >= 5_000) late.push([what, Date.now() - started]);
      }
      const opened = storage.open('screenshots/1/2/1.png');
      const started = Date.now();
      await expect(new Promise((resolve, reject) => opened.on('error', reject).on('end', resolve).resume())).rejects.toThrow(
        'no answer within 1000 ms (S3_FIRST_BYTE_TIMEOUT_MS)',
      );
      if (Date.now() - started >= 5_000) late.push(['open', Date.now() - started]);
      expect(late).toEqual([]);
    } finally {
      server.thaw();
    }
    expect((await storage.read('screenshots/1/2/1.png'))?.toString()).toBe('kept');
  });
});
