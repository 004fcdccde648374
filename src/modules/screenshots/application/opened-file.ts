import type { Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { errorMessage } from '../../../shared/domain/error-message';
import { ScreenshotStorage, StorageUnavailableError } from './ports';

/**
 * A stored file's stream once the store has answered for it: its first bytes are in, or it ended. What goes wrong
 * before that is answered before any header is sent —
 * - no file under the key: 404 naming `what`, told by the stream's own error (`isMissing`), with no `exists` lookup
 *   before it (a stat on disk, a HEAD on S3: ~100 µs of CPU a cached render, docs/benchmark.md);
 * - a store that is away, or answered and froze before the bytes (its open is bounded by S3_FIRST_BYTE_TIMEOUT_MS):
 *   503 `unavailable` (StorageUnavailableError), never a reply that fails after it began (a 500 after 30 s, issue 43).
 * Used by every answer that streams a stored file: a screenshot's download, a cached render.
 */
export async function openedFile(storage: ScreenshotStorage, key: string, what: string, logger: Logger): Promise<Readable> {
  const stream = storage.open(key);
  let first: unknown;
  try {
    first = await new Promise<unknown>((resolve, reject) => {
      const settle = (fn: () => void) => {
        stream.off('data', onData).off('end', onEnd).off('error', onError);
        fn();
      };
      const onData = (chunk: unknown) => settle(() => (stream.pause(), resolve(chunk)));
      const onEnd = () => settle(() => resolve(null));
      const onError = (err: Error) => settle(() => reject(err));
      stream.on('data', onData).on('end', onEnd).on('error', onError);
    });
  } catch (err) {
    stream.destroy();
    if (storage.isMissing(err)) throw new NotFoundError(what);
    logger.error(`reading ${what.toLowerCase()} ${key} failed: ${errorMessage(err)}`);
    throw new StorageUnavailableError();
  }
  // Until the reply reads on, an error has no other listener (it would end the process); the reply's own
  // listener sees it once it reads.
  stream.on('error', () => undefined);
  if (first === null) return Readable.from([]);
  // The first bytes go back to the head of the paused stream, which the reply then reads as it is: no second
  // stream around it (an async generator around it cost ~150 µs of a cache hit, docs/benchmark.md).
  stream.unshift(first);
  return stream;
}
