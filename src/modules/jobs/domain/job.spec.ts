import { isSameJobRequest, JobRequest } from './job';

describe('isSameJobRequest (what an Idempotency-Key stands for)', () => {
  const capture: JobRequest = { type: 'screenshot', websiteId: 1, source: 'api', options: { fullPage: true, hideSelectors: ['#a', '#b'] } };

  it('a retry is the same request, whatever the key order of its options or a JSON round trip left out', () => {
    expect(isSameJobRequest(capture, { ...capture, options: { hideSelectors: ['#a', '#b'], fullPage: true } })).toBe(true);
    expect(isSameJobRequest(capture, { ...capture, options: { fullPage: true, hideSelectors: ['#a', '#b'], delayMs: undefined } })).toBe(true);
  });

  it('another website, other options, another kind of job or another origin is a different request', () => {
    expect(isSameJobRequest(capture, { ...capture, websiteId: 2 })).toBe(false);
    expect(isSameJobRequest(capture, { ...capture, options: { fullPage: false } })).toBe(false);
    expect(isSameJobRequest(capture, { ...capture, options: { fullPage: true, hideSelectors: ['#b', '#a'] } })).toBe(false);
    expect(isSameJobRequest(capture, { ...capture, type: 'scenario', scenarioId: 3 })).toBe(false);
    // A client's key can never stand for a schedule's occurrence, nor one schedule's for another's.
    expect(isSameJobRequest({ ...capture, source: 'schedule', scheduleId: 4, options: {} }, { ...capture, options: {} })).toBe(false);
    expect(isSameJobRequest({ ...capture, source: 'schedule', scheduleId: 4 }, { ...capture, source: 'schedule', scheduleId: 5 })).toBe(false);
  });

  it('a kind whose payload is a snapshot (a scenario run) is the same request for the same scenario even after its steps were edited', () => {
    const run: JobRequest = { type: 'scenario', websiteId: 1, scenarioId: 3, source: 'api', options: { steps: [1] } };
    expect(isSameJobRequest(run, { ...run, options: { steps: [2] } }, false)).toBe(true);
    expect(isSameJobRequest(run, { ...run, scenarioId: 4 }, false)).toBe(false);
    // The kind decides, not the name: compared, other steps are another request.
    expect(isSameJobRequest(run, { ...run, options: { steps: [2] } })).toBe(false);
  });
});
