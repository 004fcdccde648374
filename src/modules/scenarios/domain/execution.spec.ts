import { initialStepRecords, isFinishedStepStatus, REDACTED, redactFillValues, redactStepForLogs, redactStepsForLogs, STEP_RUN_STATUSES } from './execution';
import { Step } from './steps';

const steps: Step[] = [
  { type: 'navigate', url: 'https://example.com/login' },
  { type: 'fill', selector: '#user', value: 'alice' },
  { type: 'fill', selector: '#password', value: 'p@ss word!' },
  { type: 'select', selector: '#plan', value: 'pro' },
  { type: 'click', selector: 'button[type=submit]' },
];

describe('step records', () => {
  it('start pending, one per step, in order', () => {
    expect(initialStepRecords(steps)).toEqual([
      { index: 0, type: 'navigate', status: 'pending', duration_ms: null, error: null },
      { index: 1, type: 'fill', status: 'pending', duration_ms: null, error: null },
      { index: 2, type: 'fill', status: 'pending', duration_ms: null, error: null },
      { index: 3, type: 'select', status: 'pending', duration_ms: null, error: null },
      { index: 4, type: 'click', status: 'pending', duration_ms: null, error: null },
    ]);
  });

  it.each(STEP_RUN_STATUSES.map((s) => [s, s !== 'pending' && s !== 'running'] as const))('%s finished: %s', (status, finished) => {
    expect(isFinishedStepStatus(status)).toBe(finished);
  });
});

describe('redactStepForLogs', () => {
  it('replaces fill.value and nothing else', () => {
    expect(redactStepForLogs({ type: 'fill', selector: '#password', value: 'hunter2' })).toEqual({
      type: 'fill',
      selector: '#password',
      value: '[redacted]',
    });
    expect(REDACTED).toBe('[redacted]');
  });

  it.each(steps.filter((s) => s.type !== 'fill'))('leaves %j as it is', (step) => {
    expect(redactStepForLogs(step)).toEqual(step);
  });

  it('never mutates its input', () => {
    const step: Step = { type: 'fill', selector: '#p', value: 'secret' };
    const copy = redactStepForLogs(step);
    expect(step).toEqual({ type: 'fill', selector: '#p', value: 'secret' });
    expect(copy).not.toBe(step);
  });

  it('a whole scenario serialised for logs contains no fill value', () => {
    const logged = JSON.stringify(redactStepsForLogs(steps));
    expect(logged).not.toContain('alice');
    expect(logged).not.toContain('p@ss word!');
    expect(logged).toContain('pro'); // select values are not secrets
  });
});

describe('redactFillValues', () => {
  it('removes fill values from error texts, as typed and URL-encoded', () => {
    const text = 'Navigation to https://example.com/?u=alice&p=p%40ss%20word!&q=p%40ss+word! failed; typed p@ss word! into #password';
    const redacted = redactFillValues(text, steps);
    expect(redacted).toBe('Navigation to https://example.com/?u=[redacted]&p=[redacted]&q=[redacted] failed; typed [redacted] into #password');
  });

  it('replaces longer values first and never rewrites the marker itself', () => {
    const s: Step[] = [
      { type: 'fill', selector: '#a', value: 'd' },
      { type: 'fill', selector: '#b', value: 'abcd' },
    ];
    expect(redactFillValues('abcd or d', s)).toBe('[redacted] or [redacted]');
  });

  it('treats values literally, not as patterns, and ignores empty values', () => {
    const s: Step[] = [
      { type: 'fill', selector: '#a', value: 'a.b*(c)' },
      { type: 'fill', selector: '#b', value: '' },
    ];
    expect(redactFillValues('x a.b*(c) axbbbc', s)).toBe('x [redacted] axbbbc');
    expect(redactFillValues('nothing here', [])).toBe('nothing here');
  });
});
