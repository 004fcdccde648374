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

  describe('a Slack or Discord target: https, the exact host, the default port, the webhooks path (normalised)', () => {
    it.each([
      ['slack', 'https://hooks.slack.com/services/T000/B000/XXXX'],
      ['slack', 'https://HOOKS.slack.com/services/T000/B000/XXXX'],
      ['slack', 'https://hooks.slack.com:443/services/T000/B000/XXXX'],
      ['discord', 'https://discord.com/api/webhooks/123/tok-en_1'],
      ['discord', 'https://discordapp.com/api/webhooks/123/token'],
      ['discord', 'https://ptb.discord.com/api/webhooks/123/token?wait=true'],
      ['discord', 'https://discord.com/api/webhooks/123/token?thread_id=9'],
    ] as const)('%s accepts %s', (type, target) => {
      expect(webhookUrlProblem(type, target, [])).toBeNull();
    });

    it.each([
      ['discord', 'https://discord.com/api/other', 'another path on the host'],
      ['discord', 'https://discord.com/api/webhooks/', 'the prefix alone'],
      ['discord', 'https://discord.com/api/webhooksX/1/t', 'a path that only starts like the prefix'],
      ['discord', 'https://discord.com/api/webhooks/../other', 'a .. segment'],
      ['discord', 'https://discord.com/api/webhooks/1/../../users/@me', 'a .. segment that stays under the prefix'],
      ['discord', 'https://discord.com/api/webhooks/./1/t', 'a . segment'],
      ['discord', 'https://discord.com/api/webhooks/%2e%2e/other', 'encoded dots'],
      ['discord', 'https://discord.com/api/webhooks/%2E%2E/other', 'encoded dots in capitals'],
      ['discord', 'https://discord.com/api/webhooks/1%2f..%2f..%2fother', 'encoded slashes'],
      ['discord', 'https://discord.com/api/webhooks/1%5c..%5cother', 'encoded backslashes'],
      ['discord', 'https://discord.com/api/webhooks\\..\\other', 'backslashes'],
      ['discord', 'https://discord.com/api/web\thooks/1/t', 'a tab (parsers strip it)'],
      ['discord', 'https://discord.com:8443/api/webhooks/1/t', 'port 8443'],
      ['discord', 'https://discord.com:80/api/webhooks/1/t', 'port 80 over https'],
      ['discord', 'http://discord.com/api/webhooks/1/t', 'http'],
      ['discord', 'https://discord.com./api/webhooks/1/t', 'the host with a trailing dot'],
      ['discord', 'https://evil.discord.com/api/webhooks/1/t', 'a subdomain not listed'],
      ['discord', 'https://discord.com.evil.example/api/webhooks/1/t', 'a host that starts like it'],
      ['discord', 'https://user:pass@discord.com/api/webhooks/1/t', 'credentials'],
      ['discord', 'https://hooks.slack.com/services/T/B/X', "Slack's host"],
      ['slack', 'https://hooks.slack.com/other/T/B/X', 'another path'],
      ['slack', 'https://hooks.slack.com/services/../admin', 'a .. segment'],
      ['slack', 'https://hooks.slack.com:8443/services/T/B/X', 'port 8443'],
      ['slack', 'https://discord.com/api/webhooks/1/t', "Discord's host"],
    ] as const)('%s refuses %s (%s), naming the expected URL', (type, target, _why) => {
      const prefix = type === 'slack' ? 'https://hooks.slack.com/services/…' : 'https://discord.com/api/webhooks/…';
      expect(webhookUrlProblem(type, target, [])).toBe(`target must be a ${type === 'slack' ? 'Slack' : 'Discord'} incoming-webhook URL (${prefix})`);
    });

    it('an origin in URL_ALLOWLIST (a self-hosted Mattermost) keeps its own paths', () => {
      expect(webhookUrlProblem('slack', 'http://mm.local:8065/hooks/x', ['http://mm.local:8065'])).toBeNull();
      expect(webhookUrlProblem('slack', 'http://mm.local:8066/hooks/x', ['http://mm.local:8065'])).not.toBeNull();
    });
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
