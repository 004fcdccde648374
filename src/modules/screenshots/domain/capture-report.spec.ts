import { captureReportView, CaptureReport, incompleteReasons, parseCaptureReport, serializeCaptureReport } from './capture-report';
import { failOnStatusForCapture, isFailOnStatus } from '../../../shared/domain/page-options';
import { pageOptionConflicts } from '../../../shared/domain/capture-option-rules';
import { captureWarnings, type CaptureObservations } from '../../../shared/domain/capture-warnings';

const NOTHING_SEEN: CaptureObservations = {
  hungRequests: [],
  parsed: true,
  animationRunning: false,
  scrollContainer: null,
  unpaintedIframes: 0,
  cut: null,
  consent: null,
};

const REPORT: CaptureReport = {
  httpStatus: 200,
  finalUrl: 'https://example.com/en/',
  title: 'Example',
  pageHeight: 4210,
  truncated: false,
  settled: true,
  waitedMs: 140,
  pending: [],
  warnings: [],
  proxy: 'http://********@proxy.example.com:8080',
  session: { id: 3, name: 'Shop', refreshed: true },
};

describe('capture report', () => {
  it('is stored and read back field for field, and shown in the API’s names', () => {
    const stored = serializeCaptureReport(REPORT);
    expect(parseCaptureReport(stored)).toEqual(REPORT);
    expect(captureReportView(parseCaptureReport(stored))).toEqual({
      http_status: 200,
      final_url: 'https://example.com/en/',
      title: 'Example',
      page_height: 4210,
      truncated: false,
      settled: true,
      waited_ms: 140,
      pending: [],
      warnings: [],
      proxy: 'http://********@proxy.example.com:8080',
      session: { id: 3, name: 'Shop', refreshed: true },
    });
  });

  it('a report stored before `session` existed reads as a capture without a saved session (session null)', () => {
    const { session: _session, ...old } = REPORT;
    expect(parseCaptureReport(JSON.stringify(old))?.session).toBeNull();
  });

  it('a report stored before `proxy` existed reads as a direct capture (proxy null)', () => {
    const { proxy: _proxy, ...old } = REPORT;
    expect(parseCaptureReport(JSON.stringify(old))?.proxy).toBeNull();
  });

  it('none stored (old rows, scenario shots) → null; stored text that does not parse → null, not a failed read', () => {
    expect(serializeCaptureReport(undefined)).toBeNull();
    expect(parseCaptureReport(null)).toBeNull();
    expect(captureReportView(null)).toBeNull();
    expect(parseCaptureReport('{not json')).toBeNull();
  });

  it('keeps at most 5 pending requests', () => {
    const many = { ...REPORT, settled: false, pending: ['a/1', 'a/2', 'a/3', 'a/4', 'a/5', 'a/6'] };
    expect(parseCaptureReport(serializeCaptureReport(many))?.pending).toEqual(['a/1', 'a/2', 'a/3', 'a/4', 'a/5']);
  });

  it('incomplete: the reasons in words — at the cap with requests, at the cap while changing, cut; none when complete', () => {
    expect(incompleteReasons(REPORT)).toEqual([]);
    expect(incompleteReasons(null)).toEqual([]);
    expect(incompleteReasons({ ...REPORT, settled: false, waitedMs: 5012, pending: ['api.example.com/feed'] })).toEqual([
      "Taken after 5012 ms at the wait's cap while requests were still loading: api.example.com/feed",
    ]);
    expect(incompleteReasons({ ...REPORT, settled: false, waitedMs: 3001 })).toEqual([
      "Taken after 3001 ms at the wait's cap while the page was still changing",
    ]);
    expect(incompleteReasons({ ...REPORT, truncated: true, pageHeight: 40000 })).toEqual(['Cut at the maximum height: the page is 40000 px tall']);
  });

  it('warnings: stored and shown with their words, which replace the older reasons they cover; unknown codes dropped on read', () => {
    const hung = captureWarnings({ ...NOTHING_SEEN, hungRequests: ['ads.example/pixel.gif'] });
    const cut = captureWarnings({ ...NOTHING_SEEN, cut: { pageHeight: 40000, maxHeight: 32768 } });
    const report = { ...REPORT, settled: false, truncated: true, pageHeight: 40000, pending: ['ads.example/pixel.gif'], warnings: [...hung, ...cut] };
    const read = parseCaptureReport(serializeCaptureReport(report));
    expect(read).toEqual(report);
    expect(captureReportView(read)?.warnings).toEqual([
      { code: 'hung_requests', detail: '1 request never answered and the picture was taken without it: ads.example/pixel.gif.' },
      { code: 'truncated', detail: 'The page is 40000 px tall; the picture stops at 32768 px (the maximum height).' },
    ]);
    expect(incompleteReasons(report)).toEqual([
      '1 request never answered and the picture was taken without it: ads.example/pixel.gif.',
      'The page is 40000 px tall; the picture stops at 32768 px (the maximum height).',
    ]);
    const stored = JSON.stringify({ ...JSON.parse(serializeCaptureReport(REPORT)!), warnings: [{ code: 'nope', detail: 'x' }, { code: 'truncated' }] });
    expect(parseCaptureReport(stored)?.warnings).toEqual([]);
  });
});

describe('fail_on_status and timeout_ms rules', () => {
  it('fail_on_status is a boolean or a list of codes 400..599', () => {
    for (const ok of [true, false, [], [400], [404, 500, 599]]) expect({ ok, valid: isFailOnStatus(ok) }).toEqual({ ok, valid: true });
    for (const bad of ['true', [399], [600], [404.5], ['404'], null, 404]) expect({ bad, valid: isFailOnStatus(bad) }).toEqual({ bad, valid: false });
  });

  it('the capturer gets true, the distinct codes, or nothing (false and [] capture the error page)', () => {
    expect(failOnStatusForCapture(true)).toBe(true);
    expect(failOnStatusForCapture([404, 404, 500])).toEqual([404, 500]);
    expect(failOnStatusForCapture(false)).toBeUndefined();
    expect(failOnStatusForCapture([])).toBeUndefined();
    expect(failOnStatusForCapture(undefined)).toBeUndefined();
  });

  it('timeout_ms above the server’s CAPTURE_TIMEOUT_MS conflicts; at it, it does not', () => {
    const context = { format: 'png', viewportWidth: 1280, viewportSetByRequest: [], captureTimeoutMs: 30_000 };
    expect(pageOptionConflicts({ timeoutMs: 30_000 }, context)).toEqual([]);
    expect(pageOptionConflicts({ timeoutMs: 30_001 }, context)).toEqual([
      { field: 'timeout_ms', message: "timeout_ms must not be greater than 30000 (the server's CAPTURE_TIMEOUT_MS)" },
    ]);
  });
});
