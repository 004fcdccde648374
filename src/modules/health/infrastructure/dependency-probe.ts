import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { within } from '../../../shared/domain/within';
import { DependencyProbe } from '../application/dependency-probe';
import { commandWithin, RedisConnection } from '../../../shared/redis/redis-connection';

/**
 * The database's answer to `SELECT 1`, bounded so that /health answers within 500 ms (docs/faults.md) when a
 * dependency is frozen: it was 2 s a probe, and a frozen Redis held /health 2.0–2.3 s (issue 43). Like Redis
 * commands, time this process's event loop was held does not count (afterPoll), so a busy API does not report a
 * healthy database down.
 */
export const DATABASE_PROBE_TIMEOUT_MS = 400;
const timedOut = () => new Error('timeout');

/**
 * Pings the database and (when configured) Redis at once, each bounded so a hung dependency can't hang /health:
 * Redis by the bound every request's Redis command has (REDIS_COMMAND_TIMEOUT_MS, 300 ms), the database by
 * DATABASE_PROBE_TIMEOUT_MS.
 */
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
      within(this.dataSource.query('SELECT 1'), DATABASE_PROBE_TIMEOUT_MS, timedOut, { afterPoll: true }),
      this.redis.client ? commandWithin(this.redis.client.ping()) : Promise.resolve('PONG'),
    ]);
    return checks.every((c) => c.status === 'fulfilled');
  }
}
