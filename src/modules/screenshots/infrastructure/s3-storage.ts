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
import { UnavailableError } from '../../../shared/domain/domain-error';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { errorMessage } from '../../../shared/domain/error-message';
import { ScreenshotStorage } from '../application/ports';

const AREA = 'screenshots/';

/** What the key's extension says the file is (so a browser opening the object directly gets it right too). */
const CONTENT_TYPES: Record<string, string> = Object.fromEntries(Object.values(FORMAT_FILES).map((f) => [f.extension, f.mimeType]));

/** Bounds on one S3 call, so an unreachable endpoint fails a request in seconds instead of hanging it. */
const CONNECT_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Large full-page captures go up in parts of this size (lib-storage's multipart upload), two at a time. */
const PART_SIZE = 8 * 1024 * 1024;

/** STORAGE_DRIVER=s3 could not reach its bucket; one line naming the settings, for the operator. */
export class S3StorageUnusableError extends Error {}

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
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    maxAttempts: 3,
  });
}

/**
 * Checks at start that the bucket exists and these credentials reach it, so a worker never takes jobs it cannot
 * store (each would fail after its attempts). Outside Nest, like the disk check, so the operator reads one line.
 */
export async function checkS3Bucket(settings: S3Settings): Promise<void> {
  const client = s3Client(settings);
  try {
    await client.send(new HeadBucketCommand({ Bucket: settings.bucket }));
  } catch (err) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const why = status === 404 ? 'no such bucket' : status === 403 ? 'access denied' : errorMessage(err);
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
    if (!key.startsWith(AREA) || key.split('/').some((part) => part === '..' || part === '.')) throw new Error('invalid storage key');
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
    await this.unavailableOnFailure('storing a file', () => upload.done());
  }

  open(key: string): Readable {
    const out = new PassThrough();
    this.client
      .send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }))
      .then((res) => {
        const body = res.Body as Readable;
        body.on('error', (err) => out.destroy(err));
        // A reader that goes away (client hang-up, ZIP aborted) must not leave the S3 socket open.
        out.on('close', () => body.destroy());
        body.pipe(out);
      })
      .catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
    return out;
  }

  async read(key: string): Promise<Buffer | null> {
    const Key = this.objectKey(key);
    return this.unavailableOnFailure('reading a file', async () => {
      try {
        const res = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key }));
        return Buffer.from(await res.Body!.transformToByteArray());
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    });
  }

  async exists(key: string): Promise<boolean> {
    const Key = this.objectKey(key);
    return this.unavailableOnFailure('looking up a file', async () => {
      try {
        await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key }));
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
    await this.unavailableOnFailure('deleting a file', () => this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key })));
  }

  async deleteArea(area: string): Promise<void> {
    if (!area.endsWith('/') || area === AREA) throw new Error('not a website area');
    const prefix = this.objectKey(area);
    await this.unavailableOnFailure('deleting a website’s files', async () => {
      let token: string | undefined;
      do {
        const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: prefix, ContinuationToken: token }));
        const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        // One request per 1,000 keys (the API's most), not one per object.
        if (keys.length > 0) await this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: keys, Quiet: true } }));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    });
  }

  async *listOlderThan(before: Date): AsyncIterable<string[]> {
    let token: string | undefined;
    do {
      const page = await this.unavailableOnFailure('listing files', () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: this.objectKey(AREA), ContinuationToken: token })),
      );
      yield (page.Contents ?? [])
        .filter((o) => o.Key && o.LastModified && o.LastModified.getTime() < before.getTime())
        .map((o) => o.Key!.slice(this.settings.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** An S3 outage is the service's, not the client's: 503 `unavailable` with the reason logged, never a 500. */
  private async unavailableOnFailure<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.logger.error(`S3 ${what} failed: ${errorMessage(err)}`);
      throw new UnavailableError('Screenshot storage is unavailable; try again');
    }
  }
}
