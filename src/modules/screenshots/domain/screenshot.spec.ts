import { screenshotIdOfKey, screenshotKey, thumbnailKey } from './screenshot';

describe('storage keys', () => {
  it('a screenshot file and its thumbnail both name the screenshot id', () => {
    for (const format of ['png', 'jpeg', 'webp', 'pdf'] as const) {
      const key = screenshotKey(7, 3, 41, format);
      expect(screenshotIdOfKey(key)).toBe(41);
      expect(screenshotIdOfKey(thumbnailKey(key))).toBe(41);
    }
  });

  it('anything else names none, so the orphan sweep never touches it', () => {
    for (const key of [
      'screenshots/7/3/',
      'screenshots/7/41.png',
      'other/7/3/41.png',
      'screenshots/7/3/0.png',
      'screenshots/7/3/abc.png',
      'screenshots/.tmp/x.part',
    ]) {
      expect(screenshotIdOfKey(key)).toBeNull();
    }
  });
});
