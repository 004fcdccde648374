import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { endedIf, HandledOutcome, HandlesJobs, JobTypeHandler } from '../../jobs/application/job-kinds';
import { JobRepository } from '../../jobs/application/ports';
import type { JobProps } from '../../jobs/domain/job';
import { LoginRunner } from './login-runner';
import { SavedSessionRepository } from './ports';
import { SESSION_LOGIN_JOB_KIND, type SessionLoginJobOptions } from './session-login-job-kind';

/** Runs a session's login job: the scenario's steps, then the state kept (ready) or the failure recorded (failed). */
@Injectable()
@HandlesJobs(SESSION_LOGIN_JOB_KIND)
export class SessionLoginRunner implements JobTypeHandler<SessionLoginJobOptions> {
  constructor(
    private readonly jobs: JobRepository,
    private readonly sessions: SavedSessionRepository,
    private readonly login: LoginRunner,
    private readonly clock: Clock,
  ) {}

  async handle(job: JobProps<SessionLoginJobOptions>): Promise<HandledOutcome> {
    const session = await this.sessions.findById(job.options.sessionId);
    if (!session) return endedIf(await this.jobs.fail(job.id, 'The saved session was deleted', this.clock.now()), 'failed');
    const outcome = await this.login.logIn(session.accountId, session.scenarioId);
    await this.sessions.recordLogin(session.id, outcome, this.clock.now(), false);
    if ('error' in outcome) return endedIf(await this.jobs.fail(job.id, outcome.error, this.clock.now()), 'failed');
    return endedIf(await this.jobs.succeed(job.id, null, this.clock.now()), 'succeeded');
  }
}
