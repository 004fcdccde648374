import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { lockSteps, SignInThrottleState } from '../domain/sign-in-throttle';
import { SignInThrottleRepository } from '../application/ports';
import { SignInThrottleRow } from './orm-entities';

/** The lock rule as count → duration steps, for one SQL CASE (computed once: the rule is fixed). */
const LOCK_STEPS = lockSteps();

@Injectable()
export class TypeOrmSignInThrottleRepository extends SignInThrottleRepository {
  constructor(@InjectRepository(SignInThrottleRow) private readonly rows: Repository<SignInThrottleRow>) {
    super();
  }

  async find(key: string): Promise<SignInThrottleState | null> {
    const row = await this.rows.findOneBy({ throttleKey: key });
    return row ? { failures: row.failures, lockedUntil: row.lockedUntil } : null;
  }

  async beginAttempt(key: string, now: Date): Promise<boolean> {
    // The row first (a no-op when it exists), then one conditional UPDATE that counts the attempt and sets
    // the lock it earns: atomic on both databases, across instances, without a read-modify-write.
    await this.rows.createQueryBuilder().insert().values({ throttleKey: key, failures: 0, lockedUntil: null, updatedAt: now }).orIgnore().execute();
    const { steps, cap } = LOCK_STEPS;
    const until = (ms: number) => new Date(now.getTime() + ms);
    const params: Record<string, unknown> = { key, now, firstLock: steps[0]?.failures ?? Number.MAX_SAFE_INTEGER, capUntil: until(cap) };
    const arms = steps.map((step, i) => {
      params[`n${i}`] = step.failures;
      params[`until${i}`] = until(step.ms);
      return `WHEN failures + 1 = :n${i} THEN :until${i}`;
    });
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({
        failures: () => 'failures + 1',
        lockedUntil: () => `CASE WHEN failures + 1 < :firstLock THEN locked_until ${arms.join(' ')} ELSE :capUntil END`,
        updatedAt: now,
      })
      .where('throttle_key = :key')
      .andWhere('(locked_until IS NULL OR locked_until <= :now)')
      .setParameters(params)
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async clear(key: string): Promise<void> {
    await this.rows.delete({ throttleKey: key });
  }
}
