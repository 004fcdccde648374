import { Injectable } from '@nestjs/common';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import { executionView } from '../../scenarios/http/dto';
import { JobsService } from '../../jobs/application/jobs.service';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { jobView } from '../../jobs/http/dto';
import { screenshotView } from '../../screenshots/http/dto';
import { EventPayloads, FinishedJob, FoundChange } from '../application/ports';
import type { WebhookEvent } from '../domain/webhook';

/**
 * An event's `data` exactly as the API shows the same things (GET /jobs/{id} and GET /screenshots/{id}, or
 * GET /executions/{id}): one view per resource, so a webhook never disagrees with the API.
 */
@Injectable()
export class ApiEventPayloads extends EventPayloads {
  constructor(
    private readonly jobs: JobsService,
    private readonly screenshots: ScreenshotsService,
    private readonly scenarios: ScenariosService,
  ) {
    super();
  }

  async forJob(job: FinishedJob, event: WebhookEvent): Promise<unknown> {
    if (event.startsWith('execution.')) return { execution: executionView(await this.scenarios.execution(job.accountId, job.id)) };
    const props = await this.jobs.get(job.accountId, job.id);
    // A screenshot deleted before the event went out is reported as absent, not as an error.
    const shot = props.resultId ? await this.screenshots.get(job.accountId, props.resultId).catch(() => null) : null;
    return { job: jobView(props), screenshot: shot ? screenshotView(shot) : null };
  }

  async forChange(change: FoundChange): Promise<unknown> {
    const shot = await this.screenshots.get(change.accountId, change.screenshotId).catch(() => null);
    if (!shot?.change || shot.change.changedRatio === null) return null; // deleted before the event went out
    const text = shot.change.textDiff;
    return {
      screenshot_id: shot.id,
      previous_id: shot.change.previousId,
      changed_ratio: shot.change.changedRatio,
      text_changed: text !== null && (text.added > 0 || text.removed > 0),
      text_diff: text && { added: text.added, removed: text.removed },
      screenshot: screenshotView(shot),
    };
  }
}
