import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { SignInThrottleState } from '../domain/sign-in-throttle';
import { SignInThrottleRepository } from '../application/ports';
import { SignInThrottleRow } from './orm-entities';

@Injectable()
export class TypeOrmSignInThrottleRepository extends SignInThrottleRepository {
  constructor(@InjectRepository(SignInThrottleRow) private readonly rows: Repository<SignInThrottleRow>) {
    super();
  }

  async find(key: string): Promise<SignInThrottleState | null> {
    const row = await this.rows.findOneBy({ throttleKey: key });
    return row ? { failures: row.failures, lockedUntil: row.lockedUntil } : null;
  }

  async addFailure(key: string, now: Date): Promise<number> {
    // An in-database increment, so parallel guesses from several instances are all counted.
    const bump = () => this.rows.createQueryBuilder().update().set({ failures: () => 'failures + 1', updatedAt: now }).where('throttle_key = :key', { key }).execute();
    if (!(await bump()).affected) {
      try {
        await this.rows.insert({ throttleKey: key, failures: 1, lockedUntil: null, updatedAt: now });
      } catch {
        await bump(); // another request inserted the row first
      }
    }
    return (await this.rows.findOneByOrFail({ throttleKey: key })).failures;
  }

  async lockUntil(key: string, until: Date): Promise<void> {
    await this.rows.update({ throttleKey: key }, { lockedUntil: until });
  }

  async clear(key: string): Promise<void> {
    await this.rows.delete({ throttleKey: key });
  }
}
