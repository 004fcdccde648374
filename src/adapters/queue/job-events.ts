import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { JobEvents } from '../../modules/jobs/application/job-events';

/** One process: an emitter keyed by job id. */
export class InProcessJobEvents extends JobEvents {
  protected readonly local = new EventEmitter().setMaxListeners(0);

  ended(jobId: string): void {
    this.local.emit(jobId);
  }

  waitForEnd(jobId: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.local.removeListener(jobId, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.local.once(jobId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** For tests: how many waits are open (every one of them holds a listener). */
  waiting(): number {
    return this.local.eventNames().reduce((n, name) => n + this.local.listenerCount(name), 0);
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
  }
}

/**
 * Several processes: job ids published on one Redis channel; each process keeps one subscriber connection
 * (a connection in subscriber mode can do nothing else) and fans messages out to its own waiters.
 */
export class RedisJobEvents extends InProcessJobEvents {
  private readonly logger = new Logger('JobEvents');
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;

  constructor(redisUrl: string, keyPrefix: string) {
    super();
    this.channel = `${keyPrefix}:jobs:ended`;
    const options = { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000) };
    this.publisher = new Redis(redisUrl, { ...options, commandTimeout: 300 });
    // The subscriber keeps its offline queue: SUBSCRIBE is sent as soon as it connects, and again on reconnect.
    this.subscriber = new Redis(redisUrl, { retryStrategy: options.retryStrategy, maxRetriesPerRequest: null });
    for (const client of [this.publisher, this.subscriber]) client.on('error', (err: Error) => this.logger.warn(`redis: ${err.message}`));
    this.subscriber.on('message', (channel: string, jobId: string) => {
      if (channel === this.channel) this.local.emit(jobId);
    });
    void this.subscriber.subscribe(this.channel).catch((err: Error) => this.logger.warn(`subscribe: ${err.message}`));
  }

  override ended(jobId: string): void {
    // Waiters in this process hear it through the channel too (a subscriber receives its own process's
    // publications); Redis being away only delays them until their next re-read.
    this.publisher.publish(this.channel, jobId).catch(() => this.local.emit(jobId));
  }

  override async close(): Promise<void> {
    await super.close();
    await Promise.all([this.publisher, this.subscriber].map((client) => client.quit().catch(() => client.disconnect())));
  }
}
