import { Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { commandWithin, RedisConnection } from '../../../shared/redis/redis-connection';
import { CountedKey, CounterStore } from '../application/counter-store';

// One round trip, executed atomically by Redis: no other instance can interleave between the two counters.
const COUNT_REQUEST = `
local m = redis.call('INCR', KEYS[1])
if m == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local h
if m <= tonumber(ARGV[3]) then
  h = redis.call('INCR', KEYS[2])
  if h == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
else
  h = tonumber(redis.call('GET', KEYS[2]) or '0')
end
return {m, h}
`;

const INCREMENT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return c
`;

/** Scaled-out mode: counters in Redis, shared by every API instance. */
@Injectable()
export class RedisCounterStore extends CounterStore {
  private readonly redis: Redis;

  constructor(private readonly connection: RedisConnection) {
    super();
    if (!connection.client) throw new Error('RedisCounterStore needs REDIS_URL');
    this.redis = connection.client;
  }

  async countRequest(minute: CountedKey, hour: CountedKey, minuteLimit: number): Promise<{ minute: number; hour: number }> {
    // A little slack on expiry so a key never vanishes while its window is still being read.
    const [m, h] = (await commandWithin(
      this.redis.eval(
        COUNT_REQUEST,
        2,
        this.connection.key(minute.key),
        this.connection.key(hour.key),
        String(minute.ttlMs + 5000),
        String(hour.ttlMs + 5000),
        String(minuteLimit),
      ),
    )) as [number, number];
    return { minute: Number(m), hour: Number(h) };
  }

  async read(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    return (await commandWithin(this.redis.mget(...keys.map((k) => this.connection.key(k))))).map((v) => Number(v ?? 0));
  }

  async increment(counter: CountedKey): Promise<number> {
    return Number(await commandWithin(this.redis.eval(INCREMENT, 1, this.connection.key(counter.key), String(counter.ttlMs + 5000))));
  }
}
