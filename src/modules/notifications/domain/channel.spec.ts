import { ChannelProps, emailProblem, maskedTarget, wants, webhookUrlProblem } from './channel';
import { discordMessage, emailMessage, EventFacts, slackMessage, summary } from './message';

const channel = (over: Partial<ChannelProps> = {}): ChannelProps => ({
  id: 1,
  accountId: 1,
  name: 'Ops',
  type: 'slack',
  target: 'https://hooks.slack.com/services/T/B/secret',
  events: ['screenshot.changed'],
  websiteIds: null,
  enabled: true,
  failingSince: null,
  disabledReason: null,
  disabledAt: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:00:00Z'),
  ...over,
});
const after = new Date('2026-01-02T00:00:00Z');

const facts = (over: Partial<EventFacts> = {}): EventFacts => ({
  event: 'screenshot.changed',
  websiteName: 'Acme <home>',
  url: 'https://acme.example/',
  changedRatio: 0.1234,
  textDiff: { added: 2, removed: 1, firstLines: ['+ Ship faster, v2', '- Ship faster, v1'] },
  error: null,
  links: {
    compare: 'https://s.example/dashboard/screenshots/9/compare',
    screenshot: null,
    image: 'https://s.example/dashboard/screenshots/9/image',
    job: null,
  },
  ...over,
});

describe('notification channel rules', () => {
  it('wants an event it subscribed to, for its websites, that happened after it was created, while enabled', () => {
    expect(wants(channel(), 'screenshot.changed', 5, after)).toBe(true);
    expect(wants(channel(), 'screenshot.failed', 5, after)).toBe(false);
    expect(wants(channel({ enabled: false }), 'screenshot.changed', 5, after)).toBe(false);
    expect(wants(channel({ websiteIds: [4] }), 'screenshot.changed', 5, after)).toBe(false);
    expect(wants(channel({ websiteIds: [4, 5] }), 'screenshot.changed', 5, after)).toBe(true);
    expect(wants(channel({ websiteIds: [4] }), 'screenshot.changed', null, after)).toBe(false);
    expect(wants(channel(), 'screenshot.changed', 5, new Date('2025-12-31T00:00:00Z'))).toBe(false);
  });

  it('masks a webhook URL to scheme and host; shows an e-mail address', () => {
    expect(maskedTarget('slack', 'https://hooks.slack.com/services/T/B/secret')).toBe('https://hooks.slack.com/********');
    expect(maskedTarget('discord', 'https://discord.com/api/webhooks/1/tok')).toBe('https://discord.com/********');
    expect(maskedTarget('email', 'ops@example.com')).toBe('ops@example.com');
  });

  it('Slack and Discord targets must be their hosts over https, unless the origin is allowlisted', () => {
    expect(webhookUrlProblem('slack', 'https://hooks.slack.com/services/x', [])).toBeNull();
    expect(webhookUrlProblem('slack', 'http://hooks.slack.com/services/x', [])).toMatch(/hooks\.slack\.com/);
    expect(webhookUrlProblem('slack', 'https://evil.example/services/x', [])).toMatch(/hooks\.slack\.com/);
    expect(webhookUrlProblem('discord', 'https://discord.com/api/webhooks/1/t', [])).toBeNull();
    expect(webhookUrlProblem('discord', 'http://mm.local:8065/hooks/x', ['http://mm.local:8065'])).toBeNull();
    expect(emailProblem('ops@example.com')).toBeNull();
    expect(emailProblem('ops at example')).toMatch(/e-mail address/);
  });
});

describe('notification messages', () => {
  it('a change names the website, the ratio, the text lines and the first changed lines', () => {
    const { title, lines } = summary(facts());
    expect(title).toBe('Acme <home> changed');
    expect(lines).toEqual([
      'Page: https://acme.example/',
      'Pixels changed: 12.34 %',
      'Text: 2 lines added, 1 removed',
      '+ Ship faster, v2',
      '- Ship faster, v1',
    ]);
  });

  it('Slack escapes its markup; Discord never pings; e-mail escapes its HTML and carries the image', () => {
    const slack = slackMessage(facts());
    expect(JSON.stringify(slack.blocks)).toContain('Acme &lt;home&gt; changed');
    expect(JSON.stringify(slack.blocks)).toContain('<https://s.example/dashboard/screenshots/9/compare|Compare>');
    const discord = discordMessage(facts({ websiteName: '@everyone' }));
    expect(discord).toMatchObject({ content: '@everyone changed', allowed_mentions: { parse: [] } });
    const mail = emailMessage(facts());
    expect(mail.subject).toBe('Acme <home> changed');
    expect(mail.html).toContain('Acme &lt;home&gt; changed');
    expect(mail.html).toContain('<img src="https://s.example/dashboard/screenshots/9/image"');
    expect(mail.text).toContain('Compare: https://s.example/dashboard/screenshots/9/compare');
  });

  it('a failure says the error; a deleted website is said so', () => {
    const { title, lines } = summary(
      facts({ event: 'screenshot.failed', websiteName: null, changedRatio: null, textDiff: null, error: 'net::ERR_CONNECTION_REFUSED' }),
    );
    expect(title).toBe('A deleted website: screenshot failed');
    expect(lines).toContain('Error: net::ERR_CONNECTION_REFUSED');
  });
});
