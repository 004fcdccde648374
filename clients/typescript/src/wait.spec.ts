import { createClient } from './client';
import { waitForJob, WaitTimeoutError } from './wait';

/**
 * A stand-in for the service's GET /jobs/{id}: answers the statuses in turn, records each request's wait, and moves
 * the (mocked) clock on by that wait when the job has not ended, as the service holds such a request.
 */
function fakeService(statuses: string[]) {
  const waits: (string | null)[] = [];
  let now = 1_000_000;
  jest.spyOn(Date, 'now').mockImplementation(() => now);
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    waits.push(url.searchParams.get('wait'));
    const status = statuses.shift() ?? 'running';
    if (status === 'queued' || status === 'running') now += Number(url.searchParams.get('wait')) * 1000;
    return Response.json({ success: true, data: { id: url.pathname.split('/').pop(), status, error: null } });
  };
  return { client: createClient({ baseUrl: 'http://service.test', token: 'sst_x', fetch }), waits };
}

describe('waitForJob', () => {
  afterEach(() => jest.restoreAllMocks());

  it('long-polls with wait=30 until the job has ended, and resolves a failed job too', async () => {
    const { client, waits } = fakeService(['queued', 'running', 'failed']);
    await expect(waitForJob(client, 'j1', { timeoutMs: 600_000 })).resolves.toMatchObject({ id: 'j1', status: 'failed' });
    expect(waits).toEqual(['30', '30', '30']);
  });

  it('asks for no longer than the time left (rounded up: never a busy wait=0), then throws with the last state', async () => {
    const { client, waits } = fakeService([]);
    const outcome = await waitForJob(client, 'j2', { timeoutMs: 74_500 }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(WaitTimeoutError);
    expect((outcome as WaitTimeoutError<{ status: string }>).last.status).toBe('running');
    expect(waits).toEqual(['30', '30', '15']);
  });
});
