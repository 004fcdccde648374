import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { JobProps, JobSource } from '../../jobs/domain/job';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import { Schedule } from '../domain/schedule';

/**
 * What a schedule runs, whoever asks (the ticker for an occurrence, a person for Run now): a capture of its
 * website with the website's saved options, or a run of its scenario (an execution, on the scenario's website,
 * with its steps as they are when the run is asked for). Every job names the schedule (schedule_id).
 */
@Injectable()
export class ScheduleRuns {
  constructor(
    private readonly captureJobs: CaptureJobsService,
    private readonly scenarios: ScenariosService,
  ) {}

  /** Queues the schedule's job durably; the same `idempotencyKey` gives the same job. */
  submit(schedule: Schedule, idempotencyKey: string | null, source: JobSource): Promise<JobProps> {
    // The schedule's own saved session wins: a scenario's run takes it before the scenario's, a capture as its
    // sessionId option before the website's (none: they decide as without a schedule).
    const sessionId = schedule.runSessionId();
    const origin = { source, scheduleId: schedule.id, ...(sessionId === undefined ? {} : { sessionId }) };
    if (schedule.scenarioId !== null) return this.scenarios.run(schedule.accountId, schedule.scenarioId, idempotencyKey, origin);
    const options = sessionId === undefined ? {} : { sessionId };
    return this.captureJobs.requestCapture(schedule.accountId, schedule.websiteId, options, idempotencyKey, source, schedule.id);
  }

  /**
   * The website a run would load: the schedule's, or its scenario's as the scenario is now (a scenario moved to
   * another website runs there). Null when the scenario is gone (deleting it deletes the schedule; this is the race).
   */
  websiteOf(schedule: Schedule): Promise<number | null> {
    if (schedule.scenarioId === null) return Promise.resolve(schedule.websiteId);
    return this.scenarioWebsite(schedule.accountId, schedule.scenarioId);
  }

  /** The scenario's website, or null when `scenarioId` is not one of the account's scenarios. */
  async scenarioWebsite(accountId: number, scenarioId: number): Promise<number | null> {
    try {
      return (await this.scenarios.get(accountId, scenarioId)).websiteId;
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }
}
