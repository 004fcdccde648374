import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config';

/**
 * The one Redis client of the process (rate-limit counters, health), or none in embedded mode.
 * Keys are namespaced with REDIS_KEY_PREFIX so deployments and test runs can share a server.
 */
@Injectable()
export class RedisConnection implements OnModuleDestroy {
  private readonly logger = new Logger('Redis');
  readonly client: Redis | null;

  constructor(private readonly config: AppConfig) {
    this.client = config.redisUrl
      ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableReadyCheck: true, connectTimeout: 5000 })
      : null;
    // Without a listener ioredis prints every reconnect attempt as an unhandled error.
    this.client?.on('error', (err: Error) => this.logger.warn(`redis: ${err.message}`));
  }

  key(name: string): string {
    return `${this.config.redisKeyPrefix}:${name}`;
  }

  async onModuleDestroy(): Promise<void> {
    await this.client?.quit().catch(() => this.client?.disconnect());
  }
}
