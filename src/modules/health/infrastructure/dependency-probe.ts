import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RedisConnection } from '../../../shared/redis/redis-connection';

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Pings the database and (when configured) Redis, each bounded so a hung dependency can't hang /health. */
@Injectable()
export class DependencyProbe {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisConnection,
  ) {}

  async allReachable(): Promise<boolean> {
    const checks = await Promise.allSettled([
      within(2000, this.dataSource.query('SELECT 1')),
      this.redis.client ? within(2000, this.redis.client.ping()) : Promise.resolve('PONG'),
    ]);
    return checks.every((c) => c.status === 'fulfilled');
  }
}
