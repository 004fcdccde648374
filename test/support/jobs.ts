import request from 'supertest';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { appServing } from './test-app';

export interface JobBody {
  id: string;
  status: string;
  screenshot_id: number | null;
  error: string | null;
  /** The failure's stable code (the raw cause of `error`'s words). */
  error_code?: string | null;
  [key: string]: unknown;
}

/**
 * Waits until a job is finished, then returns GET /jobs/{id}. When the API runs in this test process the
 * wait reads the jobs table directly, so polling never eats the account's rate limit; otherwise it polls
 * the endpoint.
 */
export async function waitForJob(baseUrl: string, auth: Record<string, string>, jobId: string, timeoutMs = 60_000): Promise<JobBody> {
  const deadline = Date.now() + timeoutMs;
  const app = appServing(baseUrl);
  for (;;) {
    let status: string;
    if (app) {
      status = (await app.get(JobRepository).findById(jobId))?.status ?? 'missing';
    } else {
      const res = await request(baseUrl).get(`/jobs/${jobId}`).set(auth);
      if (res.status !== 200) throw new Error(`GET /jobs/${jobId} answered ${res.status}: ${JSON.stringify(res.body)}`);
      status = res.body.data.status;
    }
    if (status === 'succeeded' || status === 'failed') break;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, app ? 50 : 250));
  }
  const res = await request(baseUrl).get(`/jobs/${jobId}`).set(auth);
  if (res.status !== 200) throw new Error(`GET /jobs/${jobId} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data as JobBody;
}
