import { PassThrough, type Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '../../../config/app-config';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { errorMessage } from '../../../shared/domain/error-message';
import { ScreenshotStorage, StorageUnavailableError } from '../application/ports';

const AREA = 'screenshots/';
/** Renders' cache objects (modules/renders), beside the screenshots area: the orphan sweep lists only that one. */
const RENDERS_AREA = 'renders/';
/** Batches' files (modules/batches): an area of their own beside it likewise. */
const BATCHES_AREA = 'batches/';

/** What the key's extension says the file is (so a browser opening the object directly gets it right too). */
const CONTENT_TYPES: Record<string, string> = Object.fromEntries(Object.values(FORMAT_FILES).map((f) => [f.extension, f.mimeType]));

/** Connecting is bounded apart (an address that drops SYNs fails in seconds), and never beyond a whole call. */
const CONNECT_TIMEOUT_MS = 3_000;
/** Large full-page captures go up in parts of this size (lib-storage's multipart upload), two at a time. */
const PART_SIZE = 8 * 1024 * 1024;

/** A read that S3 did not begin to answer within S3_FIRST_BYTE_TIMEOUT_MS (for the log). */
class S3FirstByteTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms (S3_FIRST_BYTE_TIMEOUT_MS)`);
    this.name = 'S3TimeoutError';
  }
}

/** STORAGE_DRIVER=s3 could not reach its bucket; one line naming the settings, for the operator. */
export class S3StorageUnusableError extends Error {}

/** A call that S3 did not finish within S3_TIMEOUT_MS (for the log: the client sees `unavailable`). */
class S3TimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms (S3_TIMEOUT_MS)`);
    this.name = 'S3TimeoutError';
  }
}

export function s3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}), // else the SDK's default chain (env, shared config, container/instance role)
    // Checksums only where the API requires them: S3-compatible servers (MinIO, R2, older ones) do not all
    // accept the SDK's newer default of a CRC32 trailer on every upload.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Each HTTP request bounded for real. In this SDK (@smithy/node-http-handler 4.x) a requestTimeout alone only
    // logs a warning unless throwOnRequestTimeout is set: a store that accepts connections but never answers
    // (frozen, SIGSTOP) held downloads and captures for as long as the freeze (issue 27). socketTimeout bounds a
    // body that stops flowing after its headers (a download from a store that froze mid-file). Every call is
    // bounded as a whole as well, retries included (S3Storage.call).
    requestHandler: {
      connectionTimeout: Math.min(CONNECT_TIMEOUT_MS, settings.timeoutMs),
      requestTimeout: settings.timeoutMs,
      throwOnRequestTimeout: true,
      socketTimeout: settings.timeoutMs,
    },
    maxAttempts: 3,
  });
}

/**
 * Checks at start that the bucket exists and these credentials reach it, so a worker never takes jobs it cannot
 * store (each would fail after its attempts). Outside Nest, like the disk check, so the operator reads one line.
 */
export async function checkS3Bucket(settings: S3Settings): Promise<void> {
  const client = s3Client(settings);
  const signal = AbortSignal.timeout(settings.timeoutMs); // a store that never answers must not hold the start
  try {
    await client.send(new HeadBucketCommand({ Bucket: settings.bucket }), { abortSignal: signal });
  } catch (err) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const why = signal.aborted
      ? new S3TimeoutError(settings.timeoutMs).message
      : status === 404
        ? 'no such bucket'
        : status === 403
          ? 'access denied'
          : errorMessage(err);
    throw new S3StorageUnusableError(
      `S3 bucket ${settings.bucket}${settings.endpoint ? ` at ${settings.endpoint}` : ''} is not usable (${why}): create it, or check S3_BUCKET, S3_ENDPOINT, S3_REGION and the credentials`,
    );
  } finally {
    client.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/**
 * Screenshot files as objects in an S3-compatible bucket (AWS S3, MinIO, R2, …): the key is the screenshot's
 * `file_path` under S3_PREFIX. Nothing touches local disk: uploads go from memory, downloads stream from S3.
 * A single PUT (or a completed multipart upload) makes an object visible whole or not at all, which is the
 * port's promise for put().
 */
export class S3Storage extends ScreenshotStorage {
  private readonly logger = new Logger('S3Storage');
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    super();
    this.client = s3Client(settings);
  }

  private objectKey(key: string): string {
    if (![AREA, RENDERS_AREA, BATCHES_AREA].some((area) => key.startsWith(area)) || key.split('/').some((part) => part === '..' || part === '.'))
      throw new Error('invalid storage key');
    return this.settings.prefix + key;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const Key = this.objectKey(key);
    const extension = key.slice(key.lastIndexOf('.') + 1);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.settings.bucket, Key, Body: data, ContentType: CONTENT_TYPES[extension] ?? 'application/octet-stream' },
      partSize: PART_SIZE,
      queueSize: 2,
      leavePartsOnError: false, // a failed multipart upload is aborted, so no parts are left to pay for
    });
    // The whole upload, all its parts, is one call: aborted when its time is up (the parts still in flight end by
    // the handler's own request bound, and a multipart upload is then aborted on the server).
    await this.call('storing a file', (signal) => {
      signal.addEventListener('abort', () => void upload.abort(), { once: true });
      return upload.done();
    });
  }

  open(key: string): Readable {
    const out = new PassThrough();
    // The answer's headers within the first-byte bound (S3_FIRST_BYTE_TIMEOUT_MS); the body then flows as fast as the reader takes it (a stalled body is
    // cut by the handler's socketTimeout), so a large file to a slow client is never cut for its size.
    const controller = new AbortController();
    let answered = false;
    const firstByteMs = this.firstByteMs();
    const timer = setTimeout(() => controller.abort(new S3FirstByteTimeoutError(firstByteMs)), firstByteMs);
    out.on('close', () => {
      clearTimeout(timer);
      if (!answered) controller.abort(); // the reader went away before S3 answered
    });
    this.client
      .send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }), { abortSignal: controller.signal })
      .then((res) => {
        answered = true;
        clearTimeout(timer);
        const body = res.Body as Readable;
        body.on('error', (err) => out.destroy(err));
        // A reader that goes away (client hang-up, ZIP aborted) must not leave the S3 socket open.
        out.on('close', () => body.destroy());
        body.pipe(out);
      })
      .catch((err: unknown) => {
        clearTimeout(timer);
        const reason: unknown = controller.signal.aborted ? controller.signal.reason : err; // say why it was aborted
        out.destroy(reason instanceof Error ? reason : err instanceof Error ? err : new Error(String(err)));
      });
    return out;
  }

  isMissing(err: unknown): boolean {
    return isNotFound(err);
  }

  async read(key: string): Promise<Buffer | null> {
    const Key = this.objectKey(key);
    return this.call('reading a file', async (abortSignal, firstByte) => {
      try {
        const res = await firstByte(this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key }), { abortSignal }));
        return Buffer.from(await res.Body!.transformToByteArray());
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    });
  }

  async exists(key: string): Promise<boolean> {
    const Key = this.objectKey(key);
    return this.call('looking up a file', async (abortSignal, firstByte) => {
      try {
        await firstByte(this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key }), { abortSignal }));
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    });
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    // Deleting a missing object succeeds in S3: the port's "a missing file is not an error" comes for free.
    await this.call('deleting a file', (abortSignal) => this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key }), { abortSignal }));
  }

  async deleteArea(area: string): Promise<void> {
    if (!area.endsWith('/') || area === AREA) throw new Error('not a website area');
    const prefix = this.objectKey(area);
    let token: string | undefined;
    do {
      const page = await this.call('listing a website’s files', (abortSignal) =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: prefix, ContinuationToken: token }), { abortSignal }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      // One request per 1,000 keys (the API's most), not one per object.
      if (keys.length > 0) {
        await this.call('deleting a website’s files', (abortSignal) =>
          this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: keys, Quiet: true } }), { abortSignal }),
        );
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async *listOlderThan(before: Date): AsyncIterable<string[]> {
    let token: string | undefined;
    do {
      const page = await this.call('listing files', (abortSignal) =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: this.objectKey(AREA), ContinuationToken: token }), { abortSignal }),
      );
      yield (page.Contents ?? [])
        .filter((o) => o.Key && o.LastModified && o.LastModified.getTime() < before.getTime())
        .map((o) => o.Key!.slice(this.settings.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * One storage call, bounded as a whole by S3_TIMEOUT_MS (the SDK's retries included): the signal aborts the
   * SDK's request, and the race answers even should something below not heed it. An S3 outage is the service's,
   * not the client's: StorageUnavailableError (503 `unavailable`) with the reason logged, never a 500 or a hang.
   */
  private async call<T>(what: string, fn: (signal: AbortSignal, firstByte: <A>(answer: Promise<A>) => Promise<A>) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timers: NodeJS.Timeout[] = [];
    let fail!: (err: Error) => void;
    const late = new Promise<never>((_, reject) => (fail = reject));
    const giveUp = (err: Error) => {
      controller.abort(err);
      fail(err);
    };
    timers.push(setTimeout(() => giveUp(new S3TimeoutError(this.settings.timeoutMs)), this.settings.timeoutMs));
    // A read's answer must begin within S3_FIRST_BYTE_TIMEOUT_MS: a frozen store that accepted the connection is
    // `unavailable` after that, not after the whole call's bound (issue 43).
    const firstByte = <A>(answer: Promise<A>): Promise<A> => {
      const ms = this.firstByteMs();
      const timer = setTimeout(() => giveUp(new S3FirstByteTimeoutError(ms)), ms);
      timers.push(timer);
      return answer.finally(() => clearTimeout(timer));
    };
    try {
      return await Promise.race([fn(controller.signal, firstByte), late]);
    } catch (err) {
      this.logger.error(`S3 ${what} failed: ${errorMessage(err)}`);
      throw new StorageUnavailableError();
    } finally {
      for (const timer of timers) clearTimeout(timer);
    }
  }

  private firstByteMs(): number {
    return Math.min(this.settings.firstByteTimeoutMs, this.settings.timeoutMs);
  }
}
