import { CAPTURE_OPTION_TABLE } from '../../../shared/domain/capture-option-table';
import { captureRequest } from '../../../../test/support/capture-request';
import { DEVICES } from '../../../shared/domain/devices';
import { compareKey } from '../domain/change';
import { comparisonKey } from './comparison-key';

const URL = 'https://example.com/';
const PLAIN_SETTINGS = { viewportWidth: 1280, viewportHeight: 800, deviceScaleFactor: 1, device: null, fullPage: false, selector: null, clip: null };

describe('comparisonKey (like for like)', () => {
  it('a plain capture keeps the key it had before the picture options counted (existing histories go on)', () => {
    expect(comparisonKey(captureRequest(URL), null, 'png')).toBe(compareKey(PLAIN_SETTINGS));
    expect(comparisonKey(captureRequest(URL, { blockResources: [], css: null, blockAds: false }), null, 'webp')).toBe(compareKey(PLAIN_SETTINGS));
  });

  it('each option that changes the picture makes another key; timing options and the image format do not', () => {
    const plain = comparisonKey(captureRequest(URL), null, 'png');
    const others = [
      captureRequest(URL, { hideSelectors: ['.ad'] }),
      captureRequest(URL, { css: 'body{background:#000}' }),
      captureRequest(URL, { darkMode: true }),
      captureRequest(URL, { blockResources: ['image'] }),
      captureRequest(URL, { blockAds: true }),
      captureRequest(URL, { blockTrackers: true }),
      captureRequest(URL, { blockCookieBanners: true }),
      captureRequest(URL, { emulation: { mobile: false, touch: false, userAgent: 'Bot/1', locale: null, timezone: null } }),
      captureRequest(URL, { emulation: { mobile: false, touch: false, userAgent: null, locale: 'de-DE', timezone: null } }),
      captureRequest(URL, { fullPage: true }),
      captureRequest(URL, { selector: '#main' }),
    ].map((r) => comparisonKey(r, null, 'png'));
    expect(new Set([plain, ...others]).size).toBe(others.length + 1);
    for (const same of [captureRequest(URL, { delayMs: 2000, waitUntil: 'load', waitForSelector: '#x', timeoutMs: 5000 })]) {
      expect(comparisonKey(same, null, 'jpeg')).toBe(plain);
    }
    // Blocked resource types in any order are the same choice.
    expect(comparisonKey(captureRequest(URL, { blockResources: ['font', 'image'] }), null, 'png')).toBe(
      comparisonKey(captureRequest(URL, { blockResources: ['image', 'font'] }), null, 'png'),
    );
  });

  it('the options that count are the capture-option table rows flagged changesPicture: what the page shows, not when or in which format', () => {
    const counted = CAPTURE_OPTION_TABLE.filter((spec) => spec.changesPicture).map((spec) => spec.wire);
    expect([...counted].sort()).toEqual(
      [
        'block_ads',
        'block_chat_widgets',
        'block_cookie_banners',
        'block_requests',
        'block_resources',
        'block_trackers',
        // What the client's scripts and clicks do to the page, what is removed and at which size: all in the picture.
        'click',
        'clip',
        'css',
        'dark_mode',
        'device',
        'device_scale_factor',
        'full_page',
        'full_page_scroll_selector',
        'hide_selectors',
        'locale',
        'media_type',
        'omit_background',
        'output_height',
        'output_width',
        'reduced_motion',
        'remove_selectors',
        'scripts',
        'selector',
        'timezone',
        'user_agent',
        'viewport_height',
        'viewport_width',
      ].sort(),
    );
  });

  it('a device’s own user agent adds nothing beyond the device; a PDF has no key', () => {
    const device = 'iPhone 15 Pro';
    const deviceUa = { mobile: true, touch: true, userAgent: DEVICES[device].userAgent, locale: null, timezone: null };
    const withDevice = comparisonKey(captureRequest(URL, { emulation: deviceUa }), device, 'png');
    expect(withDevice).toBe(compareKey({ ...PLAIN_SETTINGS, device }));
    expect(comparisonKey(captureRequest(URL), null, 'pdf')).toBeNull();
  });
});
