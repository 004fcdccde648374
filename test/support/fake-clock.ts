import { Clock } from '../../src/shared/domain/clock';

/** Follows real time until a test pins it; then moves only when told. */
export class FakeClock extends Clock {
  private fixed: number | null = null;

  now(): Date {
    return new Date(this.fixed ?? Date.now());
  }

  set(at: Date | string): void {
    this.fixed = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.fixed = (this.fixed ?? Date.now()) + ms;
  }
}
