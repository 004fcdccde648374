import { loadConfig } from '../../../config/app-config';
import { UNMATCHED_ROUTE } from '../../../shared/metrics/metrics';
import { presentsToken } from './metrics.controller';
import { routeLabel } from './request-durations';

describe('routeLabel', () => {
  const request = (url: string | undefined) => ({ routeOptions: { url } }) as Parameters<typeof routeLabel>[0];

  it('is the route pattern, never the path asked for', () => {
    expect(routeLabel(request('/screenshots/:id'))).toBe('/screenshots/:id');
    expect(routeLabel(request('/health'))).toBe('/health');
  });

  it('is one value for every request no route took: the catch-all, or none at all', () => {
    expect(routeLabel(request('/*'))).toBe(UNMATCHED_ROUTE);
    expect(routeLabel(request('*'))).toBe(UNMATCHED_ROUTE);
    expect(routeLabel(request(undefined))).toBe(UNMATCHED_ROUTE);
  });
});

describe('presentsToken', () => {
  const token = 'c2VjcmV0LW1ldHJpY3MtdG9rZW4';

  it('takes exactly `Bearer <token>` (the scheme in any case)', () => {
    expect(presentsToken(`Bearer ${token}`, token)).toBe(true);
    expect(presentsToken(`bearer ${token}`, token)).toBe(true);
  });

  it('refuses a missing, wrong, partial or differently framed token', () => {
    for (const header of [undefined, '', token, `Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, `Bearer ${token} extra`, 'Bearer ']) {
      expect(presentsToken(header, token)).toBe(false);
    }
  });
});

describe('METRICS_TOKEN', () => {
  it('unset or empty: /metrics is open', () => {
    expect(loadConfig({}).metricsToken).toBeNull();
    expect(loadConfig({ METRICS_TOKEN: '  ' }).metricsToken).toBeNull();
  });

  it('is kept as given, trimmed', () => {
    expect(loadConfig({ METRICS_TOKEN: ' 0123456789abcdef ' }).metricsToken).toBe('0123456789abcdef');
  });

  it('a token a scraper could not send or anyone could guess stops the boot', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be at least 16/);
    expect(() => loadConfig({ METRICS_TOKEN: 'has a space in the middle' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS_TOKEN: 'nön-ascii-token-value' })).toThrow(/METRICS_TOKEN/);
  });
});
