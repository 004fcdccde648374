import { ChannelProps, emailProblem, maskedTarget, wants, webhookUrlProblem } from './channel';
import { discordMessage, emailMessage, EventFacts, ntfyMessage, slackMessage, summary, teamsMessage, withoutInlineImage } from './message';

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

    it.each([
      'https://prod-12.westus.logic.azure.com:443/workflows/0123abcd/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=abc',
      'https://default0123.ab.environment.api.powerplatform.com/powerautomate/automations/direct/workflows/0123/triggers/manual/paths/invoke?api-version=1&sig=x',
      'https://contoso.webhook.office.com/webhookb2/1234@5678/IncomingWebhook/abcd/ef01',
    ])('teams accepts %s', (target) => {
      expect(webhookUrlProblem('teams', target, [])).toBeNull();
    });

    it.each([
      ['http://prod-12.westus.logic.azure.com/workflows/1', 'http'],
      ['https://logic.azure.com/workflows/1', 'the bare domain'],
      ['https://logic.azure.com.evil.example/workflows/1', 'a host that starts like it'],
      ['https://evillogic.azure.com/workflows/1', 'a host that ends like it without the dot'],
      ['https://prod-12.westus.logic.azure.com./workflows/1', 'a trailing dot'],
      ['https://prod-12.westus.logic.azure.com:8443/workflows/1', 'port 8443'],
      ['https://prod-12.westus.logic.azure.com/other/1', 'another path'],
      ['https://prod-12.westus.logic.azure.com/workflows/../admin', 'a .. segment'],
      ['https://prod-12.westus.logic.azure.com/workflows/%2e%2e/admin', 'encoded dots'],
      ['https://prod-12.westus.logic.azure.com/workflows/', 'the prefix alone'],
      ['https://contoso.webhook.office.com/workflows/1', "another domain's path"],
      ['https://u:p@contoso.webhook.office.com/webhookb2/1', 'credentials'],
      ['https://hooks.slack.com/services/T/B/X', "Slack's host"],
    ])('teams refuses %s (%s)', (target) => {
      expect(webhookUrlProblem('teams', target, [])).toMatch(/^target must be a Microsoft Teams workflow webhook URL/);
    });

    it.each(['https://ntfy.sh/my-alerts', 'https://ntfy.example.com/alerts_1', 'http://ntfy.example.com:8080/base/alerts?auth=abc'])(
      'ntfy accepts %s',
      (target) => {
        expect(webhookUrlProblem('ntfy', target, [])).toBeNull();
      },
    );

    it.each([
      ['https://ntfy.sh/', 'no topic'],
      ['https://ntfy.sh/my alerts', 'a space'],
      ['https://ntfy.sh/a/../b', 'a .. segment'],
      ['ftp://ntfy.sh/alerts', 'another scheme'],
      ['https://u:p@ntfy.sh/alerts', 'credentials'],
      ['https://ntfy.sh/' + 'x'.repeat(65), 'a topic over 64'],
      ['https://ntfy.sh/al%2Ferts', 'an encoded slash'],
    ])('ntfy refuses %s (%s)', (target) => {
      expect(webhookUrlProblem('ntfy', target, [])).toMatch(/^target must be an ntfy topic URL/);
    });

    it('Teams and ntfy targets are masked to scheme and host (the path and the topic are the secret)', () => {
      expect(maskedTarget('teams', 'https://prod-12.westus.logic.azure.com/workflows/1?sig=x')).toBe('https://prod-12.westus.logic.azure.com/********');
      expect(maskedTarget('ntfy', 'https://ntfy.sh/my-secret-topic')).toBe('https://ntfy.sh/********');
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

  it('Slack escapes its markup; Discord never pings; e-mail escapes its HTML and carries the picture inline (cid:), linked to the image', () => {
    const slack = slackMessage(facts());
    expect(JSON.stringify(slack.blocks)).toContain('Acme &lt;home&gt; changed');
    expect(JSON.stringify(slack.blocks)).toContain('<https://s.example/dashboard/screenshots/9/compare|Compare>');
    const discord = discordMessage(facts({ websiteName: '@everyone' }));
    expect(discord).toMatchObject({ content: '@everyone changed', allowed_mentions: { parse: [] } });
    const mail = emailMessage(facts());
    expect(mail.subject).toBe('Acme <home> changed');
    expect(mail.html).toContain('Acme &lt;home&gt; changed');
    // Without a picture to carry, no <img> at all (a remote image is blocked by mail clients, or needs a session).
    expect(mail.html).not.toContain('<img');
    expect(mail.inline_image).toBeUndefined();
    expect(mail.text).toContain('Compare: https://s.example/dashboard/screenshots/9/compare');
    const pictured = emailMessage(facts({ inlineImage: 9 }));
    expect(pictured.inline_image).toEqual({ screenshot_id: 9, cid: 'screenshot-9@screenshot-service' });
    expect(pictured.html).toContain(
      '<a href="https://s.example/dashboard/screenshots/9/image"><img src="cid:screenshot-9@screenshot-service" alt="The screenshot"',
    );
    // Gone by send time: the picture is left out, the rest stays.
    expect(withoutInlineImage(pictured.html)).toBe(mail.html);
  });

  it('Teams gets one Adaptive Card: the headline, each line (a changed line is no bullet), the https picture, a button per link', () => {
    const teams = teamsMessage(
      facts({ links: { compare: 'https://s.example/c', screenshot: null, image: 'https://s.example/i', diff: 'https://s.example/d', job: null } }),
    );
    expect(teams.type).toBe('message');
    const [attachment] = teams.attachments as Array<{
      contentType: string;
      content: { type: string; version: string; body: Array<Record<string, unknown>>; actions: unknown[] };
    }>;
    expect(attachment.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(attachment.content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(attachment.content.body[0]).toMatchObject({ type: 'TextBlock', text: 'Acme <home> changed', weight: 'Bolder' });
    expect(attachment.content.body.map((b) => b.text)).toContain('− Ship faster, v1');
    expect(attachment.content.body.at(-1)).toEqual({ type: 'Image', url: 'https://s.example/i', altText: 'The screenshot', size: 'Stretch' });
    expect(attachment.content.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Compare', url: 'https://s.example/c' },
      { type: 'Action.OpenUrl', title: 'Image', url: 'https://s.example/i' },
      { type: 'Action.OpenUrl', title: 'Diff', url: 'https://s.example/d' },
    ]);
    const failed = teamsMessage(facts({ event: 'screenshot.failed', error: 'The page did not answer within 30 s' }));
    expect(JSON.stringify(failed)).toContain('"color":"Attention"');
  });

  it('ntfy gets the lines as text and Title, Click, Tags (and Actions, Attach) headers; a title that is not ASCII is RFC 2047-encoded', () => {
    const n = ntfyMessage(facts());
    expect(n.body).toBe(summary(facts()).lines.join('\n'));
    expect(n.headers).toMatchObject({
      title: 'Acme <home> changed',
      click: 'https://s.example/dashboard/screenshots/9/compare',
      tags: 'mag',
      attach: 'https://s.example/dashboard/screenshots/9/image',
      'content-type': 'text/plain; charset=utf-8',
    });
    expect(n.headers.actions).toBe(
      'view, Compare, https://s.example/dashboard/screenshots/9/compare; view, Image, https://s.example/dashboard/screenshots/9/image',
    );
    const failed = ntfyMessage(facts({ event: 'screenshot.failed', websiteName: 'Café', error: 'boom' }));
    expect(failed.headers).toMatchObject({ tags: 'warning', priority: '4' });
    expect(failed.headers.title).toBe(`=?UTF-8?B?${Buffer.from('Café: screenshot failed').toString('base64')}?=`);
    for (const value of Object.values(failed.headers)) expect(value).toMatch(/^[\x20-\x7e]*$/);
  });

  it('a failure says the error; a deleted website is said so', () => {
    const { title, lines } = summary(
      facts({ event: 'screenshot.failed', websiteName: null, changedRatio: null, textDiff: null, error: 'net::ERR_CONNECTION_REFUSED' }),
    );
    expect(title).toBe('A deleted website: screenshot failed');
    expect(lines).toContain('Error: net::ERR_CONNECTION_REFUSED');
  });
});
