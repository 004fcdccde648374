import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config';
import { within } from '../domain/within';

/**
 * How long one Redis command may take before the request that needed it is answered 503. A counter INCR takes
 * well under a millisecond; a Redis that is frozen (SIGSTOP, a network partition) must not hold requests.
 * Enforced by `commandWithin` (`within`'s afterPoll), which does not count time the event loop itself was held.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 300;

/**
 * ioredis's own command timeout: only a backstop, so that commands to a frozen Redis do not wait for ever. At 300 ms
 * it answered 503 for a Redis that was fine: when this process's event loop is held longer than that (a long
 * synchronous task; seen with a pixel comparison under load), the timer fires before the reply, already in the
 * socket, is read.
 */
const CLIENT_COMMAND_TIMEOUT_MS = 5_000;

/** `command`'s result, or "Command timed out" (the error filter's 503 `unavailable`) after REDIS_COMMAND_TIMEOUT_MS. */
export function commandWithin<T>(command: Promise<T>): Promise<T> {
  return within(command, REDIS_COMMAND_TIMEOUT_MS, () => new Error('Command timed out'), { afterPoll: true });
}

/** How long the process waits at start for Redis before it serves anyway (requests then get 503 until it is up). */
const READY_WAIT_MS = 10_000;

/**
 * The one Redis client of the process (rate-limit counters, health), or none in embedded mode.
 * Keys are namespaced with REDIS_KEY_PREFIX so deployments and test runs can share a server.
 *
 * Fails fast by design: no offline queue (a command sent while disconnected fails at once instead of waiting
 * for a reconnect that may take the whole outage) and a short command timeout (callers wrap each command in
 * `commandWithin`), so an outage is a quick 503
 * `unavailable` on every request (the error filter knows these errors), and reconnects run in the background.
 */
@Injectable()
export class RedisConnection implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Redis');
  readonly client: Redis | null;

  constructor(private readonly config: AppConfig) {
    this.client = config.redisUrl
      ? new Redis(config.redisUrl, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          commandTimeout: CLIENT_COMMAND_TIMEOUT_MS,
          connectTimeout: 2000,
          enableReadyCheck: true,
          // Reconnect soon after Redis returns: 100 ms, 200 ms, … at most 1 s apart.
          retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
        })
      : null;
    // Without a listener ioredis prints every reconnect attempt as an unhandled error.
    this.client?.on('error', (err: Error) => this.logger.warn(`redis: ${err.message}`));
  }

  /** Without an offline queue, commands before the first connection would fail: wait for it (bounded). */
  async onModuleInit(): Promise<void> {
    const client = this.client;
    if (!client || client.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, READY_WAIT_MS);
      function done() {
        clearTimeout(timer);
        client!.removeListener('ready', done);
        resolve();
      }
      client.once('ready', done);
    });
    if ((client.status as string) !== 'ready') this.logger.warn(`redis: not reachable after ${READY_WAIT_MS / 1000} s; serving with 503 until it is`);
  }

  key(name: string): string {
    return `${this.config.redisKeyPrefix}:${name}`;
  }

  async onModuleDestroy(): Promise<void> {
    await this.client?.quit().catch(() => this.client?.disconnect());
  }
}
