import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { within } from '../../../shared/domain/within';
import { DependencyProbe } from '../application/dependency-probe';
import { RedisConnection } from '../../../shared/redis/redis-connection';

const PROBE_TIMEOUT_MS = 2000;
const timedOut = () => new Error('timeout');

/** Pings the database and (when configured) Redis, each bounded so a hung dependency can't hang /health. */
@Injectable()
export class DatabaseAndRedisProbe extends DependencyProbe {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisConnection,
  ) {
    super();
  }

  async allReachable(): Promise<boolean> {
    const checks = await Promise.allSettled([
      within(this.dataSource.query('SELECT 1'), PROBE_TIMEOUT_MS, timedOut),
      this.redis.client ? within(this.redis.client.ping(), PROBE_TIMEOUT_MS, timedOut) : Promise.resolve('PONG'),
    ]);
    return checks.every((c) => c.status === 'fulfilled');
  }
}
