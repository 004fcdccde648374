import { fullPageMaxHeight } from './tall-page';
import { failsOnStatus } from './capture-run';

describe('fullPageMaxHeight', () => {
  it('is the configured maximum where the image can hold it (PNG and JPEG at scale 1, 1280 wide)', () => {
    expect(fullPageMaxHeight('png', 1280, 1, 32_768)).toBe(32_768);
    expect(fullPageMaxHeight('jpeg', 1280, 1, 32_768)).toBe(32_768);
  });

  it('is lower where the format or the 100 M pixel bound would not hold it', () => {
    // WebP: 16,383 px per side.
    expect(fullPageMaxHeight('webp', 1280, 1, 32_768)).toBe(16_383);
    expect(fullPageMaxHeight('webp', 1280, 2, 32_768)).toBe(8_191);
    // 100 M pixels at 2560 device px wide.
    expect(fullPageMaxHeight('png', 1280, 2, 32_768)).toBe(19_531);
    // JPEG: 65,535 px per side.
    expect(fullPageMaxHeight('jpeg', 390, 3, 32_768)).toBe(21_845);
  });
});

describe('failsOnStatus', () => {
  it('true: any 4xx or 5xx; a list: only its codes; nothing asked or no status: never', () => {
    expect([399, 400, 404, 599, 200, 302].map((s) => failsOnStatus(s, true))).toEqual([false, true, true, true, false, false]);
    expect([404, 500].map((s) => failsOnStatus(s, [500]))).toEqual([false, true]);
    expect(failsOnStatus(404, undefined)).toBe(false);
    expect(failsOnStatus(null, true)).toBe(false);
  });
});
