import request from 'supertest';

export interface JobBody {
  id: string;
  status: string;
  screenshot_id: number | null;
  error: string | null;
  [key: string]: unknown;
}

/** Polls GET /jobs/{id} until the job is finished (the API's own way of waiting). */
export async function waitForJob(baseUrl: string, auth: Record<string, string>, jobId: string, timeoutMs = 60_000): Promise<JobBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(baseUrl).get(`/jobs/${jobId}`).set(auth);
    if (res.status !== 200) throw new Error(`GET /jobs/${jobId} answered ${res.status}: ${JSON.stringify(res.body)}`);
    const job = res.body.data as JobBody;
    if (job.status === 'succeeded' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
