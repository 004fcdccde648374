import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { AppConfig } from '../../../config/app-config';
import { JobProps } from '../domain/job';
import { declareJobKind, HandlesJobs, JOB_KIND_NAMES, JobHandlerWiringError, JobKind, JobKinds, JobTypeHandler } from './job-kinds';
import { leaseExpiredBefore, LEASE_MARGIN_MS } from './job-lease';

const CAPTURES: JobKind = {
  name: 'capture_t',
  label: 'capture',
  maxRunMs: (c) => c.captureTimeoutMs,
  events: { succeeded: 'screenshot.succeeded', failed: 'screenshot.failed' },
};
const RUNS: JobKind = { name: 'run_t', label: 'scenario run', maxRunMs: (c) => c.scenarioTimeoutMs + c.captureTimeoutMs, events: null };
const RENDERS: JobKind = { name: 'render_t', label: 'render', maxRunMs: () => 5_000, events: null };

@Injectable()
@HandlesJobs(CAPTURES)
class Captures implements JobTypeHandler {
  handle = jest.fn(async (_job: JobProps) => undefined);
}

@Injectable()
@HandlesJobs(RUNS)
class Runs implements JobTypeHandler {
  handle = jest.fn(async (_job: JobProps) => undefined);
}

@Injectable()
@HandlesJobs(RENDERS)
class Renders implements JobTypeHandler {
  handle = jest.fn(async (_job: JobProps) => undefined);
}

@Injectable()
@HandlesJobs(RUNS)
class OtherRuns implements JobTypeHandler {
  handle = jest.fn(async (_job: JobProps) => undefined);
}

/** Builds a Nest module with these providers and runs its init hooks, as the app does at boot. */
async function boot(...providers: (new () => JobTypeHandler)[]): Promise<JobKinds> {
  const module = await Test.createTestingModule({ imports: [DiscoveryModule], providers: [JobKinds, ...providers] }).compile();
  await module.init();
  return module.get(JobKinds);
}

describe('JobKinds: one registry of job kinds, one runner per kind, checked at boot', () => {
  it('finds the providers marked @HandlesJobs and routes each kind to its own', async () => {
    const kinds = await boot(Captures, Runs, Renders);
    expect(kinds.handlerFor('capture_t')).toBeInstanceOf(Captures);
    expect(kinds.handlerFor('run_t')).toBeInstanceOf(Runs);
    expect(kinds.handlerFor('render_t')).toBeInstanceOf(Renders);
  });

  it('reads each kind’s declaration (label, events) from the registry, in declaration order; the OpenAPI list is the same', async () => {
    const kinds = await boot(Captures, Runs, Renders);
    expect(kinds.all().map((k) => k.name)).toEqual(['capture_t', 'run_t', 'render_t']);
    expect(JOB_KIND_NAMES).toEqual(['capture_t', 'run_t', 'render_t']);
    expect(kinds.kind('run_t')).toMatchObject({ label: 'scenario run', events: null });
    expect(kinds.kind('capture_t')?.events).toEqual({ succeeded: 'screenshot.succeeded', failed: 'screenshot.failed' });
    expect(kinds.kind('video')).toBeNull();
  });

  it('a lease per kind, from the kind’s own time limit', async () => {
    const kinds = await boot(Captures, Runs, Renders);
    const now = new Date('2026-01-01T00:00:00Z');
    const cutoffs = leaseExpiredBefore(now, { captureTimeoutMs: 30_000, scenarioTimeoutMs: 120_000 } as AppConfig, kinds.all());
    expect(cutoffs).toEqual({
      capture_t: new Date(now.getTime() - 30_000 - LEASE_MARGIN_MS),
      run_t: new Date(now.getTime() - 150_000 - LEASE_MARGIN_MS),
      render_t: new Date(now.getTime() - 5_000 - LEASE_MARGIN_MS),
    });
  });

  it('a declared kind without a runner stops the boot, naming the kind', async () => {
    await expect(boot(Captures, Renders)).rejects.toThrow(
      new JobHandlerWiringError("no provider handles jobs of kind run_t: list its @HandlesJobs runner among its module's providers"),
    );
  });

  it('two runners for one kind stop the boot, naming the second', async () => {
    await expect(boot(Captures, Runs, Renders, OtherRuns)).rejects.toThrow(/two providers handle jobs of kind run_t \(the second is OtherRuns\)/);
  });

  it('two kinds of one name, or a name that is no stable identifier, are refused when declared', () => {
    expect(() => declareJobKind({ ...RUNS })).toThrow(new JobHandlerWiringError('two job kinds are named "run_t"'));
    expect(() => declareJobKind({ ...RUNS, name: 'Run T' })).toThrow(/a name is lowercase letters/);
    expect(() => declareJobKind(RUNS)).not.toThrow(); // the same declaration again: a no-op
  });

  it('a kind this version does not know has no runner (the dispatcher fails such a job)', async () => {
    const kinds = await boot(Captures, Runs, Renders);
    expect(kinds.handlerFor('video')).toBeNull();
  });
});
