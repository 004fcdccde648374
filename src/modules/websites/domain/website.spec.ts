import { Website, WEBSITE_RULES, WebsiteProps } from './website';

describe('Website', () => {
  it('create: the rules’ defaults for what the input leaves out, active, no capture options, the default change threshold and no ignored selectors', () => {
    expect(Website.create(7, { name: 'Home', url: 'https://example.com/' }).props).toEqual({
      accountId: 7,
      name: 'Home',
      url: 'https://example.com/',
      viewportWidth: WEBSITE_RULES.viewportWidth.default,
      viewportHeight: WEBSITE_RULES.viewportHeight.default,
      fullPage: WEBSITE_RULES.fullPageDefault,
      status: 'active',
      captureOptions: {},
      changeThreshold: 0.001,
      changeIgnoreSelectors: [],
      alertWhen: {},
      ignoreText: [],
    });
  });

  it('create: what the input gives is kept', () => {
    const site = Website.create(7, {
      name: 'Docs',
      url: 'https://example.com/docs',
      viewportWidth: 390,
      viewportHeight: 844,
      fullPage: true,
      status: 'paused',
      captureOptions: { waitUntil: 'load' },
      changeThreshold: 0.05,
      changeIgnoreSelectors: ['#clock'],
    });
    expect(site.props).toMatchObject({
      viewportWidth: 390,
      viewportHeight: 844,
      fullPage: true,
      status: 'paused',
      captureOptions: { waitUntil: 'load' },
      changeThreshold: 0.05,
      changeIgnoreSelectors: ['#clock'],
    });
  });

  it('isCapturedBySchedules: active websites are, paused ones are not', () => {
    const stored = (status: WebsiteProps['status']): WebsiteProps => ({
      id: 1,
      ...Website.create(7, { name: 'Home', url: 'https://example.com/', status }).props,
      lastScreenshotAt: null,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    });
    expect(Website.restore(stored('active')).isCapturedBySchedules()).toBe(true);
    expect(Website.restore(stored('paused')).isCapturedBySchedules()).toBe(false);
  });
});
