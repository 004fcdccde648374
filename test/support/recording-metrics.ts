import { CapturePhase, JobOutcome, Metrics, MetricsExposition } from '../../src/shared/metrics/metrics';
import { JobType } from '../../src/modules/jobs/domain/job';

/** The Metrics port for unit tests: what was recorded, in order. */
export class RecordingMetrics extends Metrics {
  readonly jobs: Array<{ type: JobType; outcome: JobOutcome }> = [];
  readonly phases: Array<{ phase: CapturePhase; seconds: number }> = [];
  readonly requests: Array<{ method: string; route: string; status: number; seconds: number }> = [];
  readonly rejections: string[] = [];

  jobEnded(type: JobType, outcome: JobOutcome): void {
    this.jobs.push({ type, outcome });
  }

  capturePhaseTimed(phase: CapturePhase, seconds: number): void {
    this.phases.push({ phase, seconds });
  }

  httpRequestTimed(method: string, route: string, status: number, seconds: number): void {
    this.requests.push({ method, route, status, seconds });
  }

  rateLimitRejected(limit: string): void {
    this.rejections.push(limit);
  }

  readonly proxyPools: Array<{ poolId: number; outcome: 'success' | 'failure' }> = [];

  proxyPoolUsed(poolId: number, outcome: 'success' | 'failure'): void {
    this.proxyPools.push({ poolId, outcome });
  }

  async scrape(): Promise<MetricsExposition> {
    return { contentType: 'text/plain', body: '' };
  }
}
