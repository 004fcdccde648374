import { UnknownProxyPoolError, type ProxyCandidate, type ProxyRouter } from '../../proxies/application/proxy-router';
import { CaptureFailure, ProxyFailure, type CaptureRequest, type CaptureResult, type PageCapturer } from './capture.port';
import type { AppConfig } from '../../../config/app-config';
import { BATCH_ITEM_JOB_KIND } from '../../batches/application/batch-item-job-kind';
import { RENDER_JOB_KIND } from '../../renders/application/render-job-kind';
import { CAPTURE_JOB_KIND } from './capture-job-kind';
import { CaptureRoute, captureRunMs } from './capture-route';
import type { SavedSessions } from './saved-sessions.port';

const request = { url: 'https://example.com/' } as CaptureRequest;
const done = { data: Buffer.from('png') } as CaptureResult;
const candidate = (n: number): ProxyCandidate =>
  ({ proxy: `http://proxy${n}.example:8080`, masked: `http://proxy${n}.example:8080`, pool: { id: 1, index: n } }) as unknown as ProxyCandidate;
/** The candidates above carry their proxy as a plain string (cast), and the capture receives it as such. */
const proxyText = (r: CaptureRequest): string => r.proxy as unknown as string;
const noSessions = { resolve: jest.fn(), afterLoggedOut: jest.fn() } as unknown as SavedSessions;

function routeWith(candidates: ProxyCandidate[] | Error, capture: (r: CaptureRequest) => Promise<CaptureResult>) {
  const proxies = {
    candidates: jest.fn(async () => {
      if (candidates instanceof Error) throw candidates;
      return candidates;
    }),
    succeeded: jest.fn(),
    failed: jest.fn(),
  };
  const capturer = { capture: jest.fn(capture) };
  return { route: new CaptureRoute(capturer as unknown as PageCapturer, proxies as unknown as ProxyRouter, noSessions), proxies, capturer };
}
const via = { proxy: { accountId: 1, websiteId: null, url: request.url, pool: 'eu' } };

describe('CaptureRoute (every job kind captures through it)', () => {
  it('goes straight out when no proxy applies', async () => {
    const { route, capturer } = routeWith([], async () => done);
    await expect(route.capture(request, via)).resolves.toBe(done);
    expect(capturer.capture).toHaveBeenCalledWith(request);
  });

  it("skips a pool's proxy that cannot be reached, cools it down and captures through the next", async () => {
    const { route, proxies, capturer } = routeWith([candidate(1), candidate(2)], async (r) => {
      if (proxyText(r).includes('proxy1'))
        throw new ProxyFailure('The proxy http://proxy1.example:8080 refused the connection', 'http://proxy1.example:8080', 'unreachable');
      return done;
    });
    await expect(route.capture(request, via)).resolves.toBe(done);
    expect(capturer.capture).toHaveBeenCalledTimes(2);
    expect(proxies.failed).toHaveBeenCalledWith(candidate(1));
    expect(proxies.succeeded).toHaveBeenCalledWith(candidate(2));
  });

  it('fails with the last proxy named when every proxy fails', async () => {
    const { route } = routeWith([candidate(1), candidate(2)], async (r) => {
      throw new ProxyFailure(`The proxy ${proxyText(r)} rejected its credentials`, proxyText(r), 'credentials');
    });
    await expect(route.capture(request, via)).rejects.toThrow('The proxy http://proxy2.example:8080 rejected its credentials');
  });

  it('does not try another proxy when the page itself failed behind it', async () => {
    const { route, capturer, proxies } = routeWith([candidate(1), candidate(2)], async () => {
      throw new ProxyFailure('The page could not be reached through the proxy', 'http://proxy1.example:8080', 'destination');
    });
    await expect(route.capture(request, via)).rejects.toThrow('The page could not be reached through the proxy');
    expect(capturer.capture).toHaveBeenCalledTimes(1);
    expect(proxies.failed).not.toHaveBeenCalled();
  });

  it('fails an unknown pool in words, as a page failure (not a retried infrastructure fault)', async () => {
    const { route } = routeWith(new UnknownProxyPoolError("The proxy pool 'eu' does not exist"), async () => done);
    const failure = await route.capture(request, via).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(CaptureFailure);
    expect(failure).toMatchObject({ kind: 'page', message: "The proxy pool 'eu' does not exist" });
  });
});

describe('captureRunMs: the lease of a capturing job covers one login again', () => {
  const config = { captureTimeoutMs: 30_000, scenarioTimeoutMs: 120_000 };

  it('is the capture limit without a session, and capture + login + capture again with one', () => {
    expect(captureRunMs(config, false)).toBe(30_000);
    expect(captureRunMs(config, true)).toBe(180_000);
  });

  it('is what every capturing job kind leases (a worker logging in again is not taken for dead)', () => {
    for (const kind of [CAPTURE_JOB_KIND, RENDER_JOB_KIND, BATCH_ITEM_JOB_KIND]) expect(kind.maxRunMs(config as AppConfig)).toBe(180_000);
  });
});
