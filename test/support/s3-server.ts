import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { restartablePort, untilBindable } from './ports';

/**
 * A real S3-protocol server for tests: `s3rver` (npm) in a process of its own, on a free loopback port, with its
 * bucket created at start and its data in a temporary directory removed on stop. Never an SDK mock: the adapter
 * under test speaks HTTP to it exactly as to AWS or MinIO.
 */
export class S3Server {
  static readonly ACCESS_KEY = 'S3RVER';
  static readonly SECRET_KEY = 'S3RVER';

  private proc: ChildProcess | null = null;
  private frozen = false;
  readonly dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  port = 0;

  constructor(readonly bucket = 'screenshots') {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The env a service needs to store in this server's bucket. */
  env(prefix = ''): Record<string, string> {
    return {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: this.bucket,
      S3_ENDPOINT: this.endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3Server.ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: S3Server.SECRET_KEY,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: prefix,
    };
  }

  client(): S3Client {
    return new S3Client({
      endpoint: this.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3Server.ACCESS_KEY, secretAccessKey: S3Server.SECRET_KEY },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Every object key in the bucket (under `prefix`). */
  async keys(prefix = ''): Promise<string[]> {
    const client = this.client();
    try {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    } finally {
      client.destroy();
    }
  }

  /**
   * Whether the server answers for its bucket: HEAD on the bucket, which reads no object (listing reads each
   * object's metadata file, so one bad file would make a healthy server look down).
   */
  private async answers(): Promise<void> {
    const client = this.client();
    try {
      await client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } finally {
      client.destroy();
    }
  }

  /**
   * s3rver's filesystem store is not crash-safe: it writes an object's `…._S3rver_metadata.json` in place, so a
   * SIGKILL during an upload can leave it torn, and every later listing of the bucket fails on it (500) until that
   * key is written again. A real store never shows a torn write, so before a restart the torn metadata files are
   * removed; s3rver then serves those objects with its default metadata, and the service's retry rewrites them.
   */
  private removeTornMetadata(): void {
    for (const entry of readdirSync(this.dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('._S3rver_metadata.json')) continue;
      const path = join(entry.parentPath, entry.name);
      try {
        JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        rmSync(path, { force: true });
      }
    }
  }

  async start(): Promise<this> {
    // s3rver does not exit when its port is taken — it stays up without listening — so the port is checked first.
    this.port ||= await restartablePort();
    await untilBindable(this.port, 15_000);
    this.removeTornMetadata();
    const bin = require.resolve('s3rver/bin/s3rver.js');
    this.proc = spawn(process.execPath, [bin, '-d', this.dir, '-a', '127.0.0.1', '-p', String(this.port), '--silent', '--configure-bucket', this.bucket], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    this.proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (this.proc.exitCode !== null) throw new Error(`s3rver exited with ${this.proc.exitCode}: ${stderr}`);
      try {
        await this.answers();
        return this;
      } catch {
        if (Date.now() > deadline) throw new Error(`s3rver did not answer on ${this.endpoint} within 15 s: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /**
   * Freezes the server (SIGSTOP): its port still accepts connections (the kernel completes them), but nothing is
   * ever answered — a hung store, not a refused one. thaw() resumes it; stop() and dispose() kill it either way.
   */
  freeze(): void {
    if (!this.proc?.pid) throw new Error('s3rver is not running');
    process.kill(this.proc.pid, 'SIGSTOP');
    this.frozen = true;
  }

  thaw(): void {
    if (this.proc?.pid && this.frozen) process.kill(this.proc.pid, 'SIGCONT');
    this.frozen = false;
  }

  /** Stops the process (its data stays until dispose(), so start() again brings the same bucket back). */
  async stop(): Promise<void> {
    const proc = this.proc;
    this.thaw();
    this.proc = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
