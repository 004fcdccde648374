import type { JobProps } from '../../../../jobs/domain/job';
import type { StepRecord } from '../../../../scenarios/domain/execution';
import { placeShots, stepSummary } from './execution.page';

const job = (over: Partial<JobProps>): JobProps => ({
  id: 'e',
  type: 'scenario',
  accountId: 1,
  websiteId: 1,
  status: 'succeeded',
  source: 'api',
  options: {},
  idempotencyKey: null,
  attempts: 1,
  error: null,
  resultId: null,
  scenarioId: 1,
  scheduleId: null,
  result: null,
  createdAt: new Date(0),
  startedAt: null,
  finishedAt: null,
  ...over,
});
const rec = (index: number, type: StepRecord['type'], status: StepRecord['status']): StepRecord => ({ index, type, status, duration_ms: 1, error: null });

describe('which screenshot of a run belongs to which step', () => {
  it('one per succeeded screenshot step, in order, then the final one', () => {
    const records = [rec(0, 'screenshot', 'succeeded'), rec(1, 'wait', 'succeeded'), rec(2, 'screenshot', 'succeeded'), rec(3, 'wait', 'succeeded')];
    const place = placeShots(job({ resultId: 12 }), records, [12, 10, 11]);
    expect([...place.byStep]).toEqual([
      [0, 10],
      [2, 11],
    ]);
    expect(place).toMatchObject({ final: 12, other: [] });
  });

  it('the last step’s shot that is also the final screenshot (stored once)', () => {
    const place = placeShots(job({ resultId: 7 }), [rec(0, 'wait', 'succeeded'), rec(1, 'screenshot', 'succeeded')], [7]);
    expect([...place.byStep]).toEqual([[1, 7]]);
    expect(place).toMatchObject({ final: 7, other: [] });
  });

  it('a failed run: skipped and failed screenshot steps have none; the last one is the failure screenshot', () => {
    const records = [rec(0, 'screenshot', 'succeeded'), rec(1, 'click', 'failed'), rec(2, 'screenshot', 'skipped')];
    const place = placeShots(job({ status: 'failed', error: 'Step 1 (click) failed: x' }), records, [4, 5]);
    expect([...place.byStep]).toEqual([[0, 4]]);
    expect(place).toMatchObject({ final: 5, other: [] });
  });

  it('fewer screenshots than succeeded screenshot steps (never expected): none placed, all shown', () => {
    const place = placeShots(job({}), [rec(0, 'screenshot', 'succeeded'), rec(1, 'screenshot', 'succeeded')], [3]);
    expect(place).toEqual({ byStep: new Map(), final: null, other: [3] });
  });
});

describe('a fill step in the run’s timeline', () => {
  it('shows its value as typed; "[redacted]" only when "Secret value" was ticked (secret: true, or stored sealed)', () => {
    expect(stepSummary({ type: 'fill', selector: '#q', value: 'running shoes' }).toString()).toContain('<code>running shoes</code>');
    expect(stepSummary({ type: 'fill', selector: '#q', value: 'running shoes', secret: false }).toString()).toContain('<code>running shoes</code>');
    const secret = stepSummary({ type: 'fill', selector: '#pw', value: 'hunter2', secret: true }).toString();
    expect(secret).toContain('<code>[redacted]</code>');
    expect(secret).not.toContain('hunter2');
    const sealed = stepSummary({ type: 'fill', selector: '#pw', secret: true, sealed_value: 'v1:abc' } as never).toString();
    expect(sealed).toContain('<code>[redacted]</code>');
    expect(sealed).not.toContain('v1:abc');
  });
});
