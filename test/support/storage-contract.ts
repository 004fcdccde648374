import type { Readable } from 'node:stream';
import type { ScreenshotStorage } from '../../src/modules/screenshots/application/ports';

/**
 * The promises every ScreenshotStorage adapter keeps (application/ports.ts), as one suite run against each of them
 * (local disk, and an S3 server process): whatever STORAGE_DRIVER says, the rest of the service sees the same thing.
 */
export function describeStorageContract(name: string, open: () => Promise<ScreenshotStorage>): void {
  describe(`${name}: the storage contract`, () => {
    let storage: ScreenshotStorage;

    beforeAll(async () => {
      storage = await open();
    });

    const text = async (stream: Readable): Promise<string> => {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString();
    };

    it('put then read, exists and open give the same bytes; put again replaces them', async () => {
      await storage.put('screenshots/1/2/3.png', Buffer.from('first'));
      expect((await storage.read('screenshots/1/2/3.png'))?.toString()).toBe('first');
      expect(await storage.exists('screenshots/1/2/3.png')).toBe(true);
      expect(await text(storage.open('screenshots/1/2/3.png'))).toBe('first');
      await storage.put('screenshots/1/2/3.png', Buffer.from('second'));
      expect((await storage.read('screenshots/1/2/3.png'))?.toString()).toBe('second');
    });

    it('a missing file: read is null, exists is false, open fails on the stream with an error isMissing knows, delete is not an error', async () => {
      expect(await storage.read('screenshots/1/2/404.png')).toBeNull();
      expect(await storage.exists('screenshots/1/2/404.png')).toBe(false);
      const failed = await text(storage.open('screenshots/1/2/404.png')).then(
        () => null,
        (err: unknown) => err,
      );
      expect(failed).not.toBeNull();
      expect(storage.isMissing(failed)).toBe(true);
      expect(storage.isMissing(new Error('the store is away'))).toBe(false);
      await expect(storage.delete('screenshots/1/2/404.png')).resolves.toBeUndefined();
    });

    it('delete removes the file and nothing beside it', async () => {
      await storage.put('screenshots/5/6/7.jpeg', Buffer.from('a'));
      await storage.put('screenshots/5/6/7.thumb.webp', Buffer.from('b'));
      await storage.delete('screenshots/5/6/7.jpeg');
      expect(await storage.exists('screenshots/5/6/7.jpeg')).toBe(false);
      expect(await storage.exists('screenshots/5/6/7.thumb.webp')).toBe(true);
    });

    it('a file larger than one upload part streams back whole, byte for byte', async () => {
      const big = Buffer.alloc(9 * 1024 * 1024 + 123);
      for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
      await storage.put('screenshots/8/8/big.png', big);
      const chunks: Buffer[] = [];
      let largest = 0;
      for await (const chunk of storage.open('screenshots/8/8/big.png')) {
        chunks.push(chunk as Buffer);
        largest = Math.max(largest, (chunk as Buffer).length);
      }
      expect(Buffer.concat(chunks).equals(big)).toBe(true);
      expect(largest).toBeLessThan(big.length); // streamed in pieces, not read whole into memory
    });

    it('deleteArea removes a website folder with everything in it and nothing else; never the whole area', async () => {
      for (const key of ['screenshots/1/2/3.png', 'screenshots/1/2/3.thumb.webp', 'screenshots/1/20/4.png']) await storage.put(key, Buffer.from(key));
      await storage.deleteArea('screenshots/1/2/');
      expect(await storage.exists('screenshots/1/2/3.png')).toBe(false);
      expect(await storage.exists('screenshots/1/2/3.thumb.webp')).toBe(false);
      expect(await storage.exists('screenshots/1/20/4.png')).toBe(true);
      await storage.deleteArea('screenshots/9/9/'); // nothing there: no error
      await expect(storage.deleteArea('screenshots/')).rejects.toThrow('not a website area');
      await expect(storage.deleteArea('screenshots/1/20/4.png')).rejects.toThrow('not a website area');
      await expect(storage.deleteArea('screenshots/../')).rejects.toThrow();
      expect(await storage.exists('screenshots/1/20/4.png')).toBe(true);
    });

    it('listOlderThan pages through every stored key written before the instant, and none after', async () => {
      await storage.put('screenshots/30/1/1.png', Buffer.from('a'));
      await storage.put('screenshots/30/2/2.thumb.webp', Buffer.from('b'));
      const all: string[] = [];
      for await (const page of storage.listOlderThan(new Date(Date.now() + 60_000))) all.push(...page);
      expect(all).toEqual(expect.arrayContaining(['screenshots/30/1/1.png', 'screenshots/30/2/2.thumb.webp']));
      expect(all.every((key) => key.startsWith('screenshots/') && !key.includes('.part'))).toBe(true);
      const none: string[] = [];
      for await (const page of storage.listOlderThan(new Date(Date.now() - 60_000))) none.push(...page);
      expect(none.filter((key) => key.startsWith('screenshots/30/'))).toEqual([]);
    });

    it('refuses keys outside its area or climbing out of it', async () => {
      await expect(storage.read('other/a.png')).rejects.toThrow();
      await expect(storage.read('screenshots/../../etc/passwd')).rejects.toThrow();
      await expect(storage.put('screenshots/../x.png', Buffer.from('x'))).rejects.toThrow();
    });
  });
}
