import { KnownDevices } from 'puppeteer';
import { DEVICES } from '../../shared/domain/devices';

/**
 * shared/domain/device-presets.json copies puppeteer's KnownDevices so the API can list and validate presets without
 * the browser library. When puppeteer changes its table, this fails: `npm run generate:devices` regenerates the copy.
 */
describe('device presets', () => {
  it('are exactly puppeteer’s KnownDevices', () => {
    const fromPuppeteer = Object.fromEntries(
      Object.entries(KnownDevices).map(([name, d]) => [
        name,
        {
          width: d.viewport.width,
          height: d.viewport.height,
          deviceScaleFactor: d.viewport.deviceScaleFactor ?? 1,
          mobile: d.viewport.isMobile ?? false,
          touch: d.viewport.hasTouch ?? false,
          userAgent: d.userAgent,
        },
      ]),
    );
    expect(DEVICES).toEqual(fromPuppeteer);
    expect(DEVICES['iPhone 15 Pro']).toMatchObject({ width: 393, deviceScaleFactor: 3, mobile: true, touch: true });
  });
});
