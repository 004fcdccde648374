import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../shared/domain/clock';
import { RedisConnection } from '../../shared/redis/redis-connection';
import { CounterStore } from './application/counter-store';
import { RateLimiter } from './application/rate-limiter';
import { MemoryCounterStore } from './infrastructure/memory-counter-store';
import { RedisCounterStore } from './infrastructure/redis-counter-store';

@Module({
  providers: [
    {
      provide: CounterStore,
      // Redis when configured, so every API instance shares one count; memory in the embedded default.
      useFactory: (config: AppConfig, redis: RedisConnection, clock: Clock) => (config.redisUrl ? new RedisCounterStore(redis) : new MemoryCounterStore(clock)),
      inject: [AppConfig, RedisConnection, Clock],
    },
    RateLimiter,
  ],
  exports: [RateLimiter],
})
export class RateLimitingModule {}
