import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { JobProps } from '../domain/job';
import { HandlesJobs, JobHandlers, JobHandlerWiringError, JobTypeHandler } from './job-handlers';

@Injectable()
@HandlesJobs('screenshot')
class Captures implements JobTypeHandler {
  handle = jest.fn(async (_job: JobProps) => undefined);
}

@Injectable()
@HandlesJobs('scenario')
class Runs implements JobTypeHandler {
  handle = jest.fn(async (_job: JobProps) => undefined);
}

@Injectable()
@HandlesJobs('render')
class Renders implements JobTypeHandler {
  handle = jest.fn(async (_job: JobProps) => undefined);
}

@Injectable()
@HandlesJobs('scenario')
class OtherRuns implements JobTypeHandler {
  handle = jest.fn(async (_job: JobProps) => undefined);
}

/** Builds a Nest module with these providers and runs its init hooks, as the app does at boot. */
async function boot(...providers: (new () => JobTypeHandler)[]): Promise<JobHandlers> {
  const module = await Test.createTestingModule({ imports: [DiscoveryModule], providers: [JobHandlers, ...providers] }).compile();
  await module.init();
  return module.get(JobHandlers);
}

describe('JobHandlers: one handler per job type, checked at boot', () => {
  it('finds the providers marked @HandlesJobs and routes each type to its own', async () => {
    const handlers = await boot(Captures, Runs, Renders);
    expect(handlers.handlerFor('screenshot')).toBeInstanceOf(Captures);
    expect(handlers.handlerFor('scenario')).toBeInstanceOf(Runs);
    expect(handlers.handlerFor('render')).toBeInstanceOf(Renders);
  });

  it('a job type without a handler stops the boot, naming the type', async () => {
    await expect(boot(Captures, Renders)).rejects.toThrow(
      new JobHandlerWiringError('no provider handles jobs of type scenario: mark one with @HandlesJobs() and register it in a module'),
    );
  });

  it('two handlers for one type stop the boot, naming the second', async () => {
    await expect(boot(Captures, Runs, OtherRuns)).rejects.toThrow(/two providers handle jobs of type scenario \(the second is OtherRuns\)/);
  });

  it('a type this version does not know has no handler (the dispatcher fails such a job)', async () => {
    const handlers = await boot(Captures, Runs, Renders);
    expect(handlers.handlerFor('video' as never)).toBeNull();
  });
});
