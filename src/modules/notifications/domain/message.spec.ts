import { emailMessage, type EventFacts, slackMessage, summary } from './message';

const facts = (over: Partial<EventFacts> = {}): EventFacts => ({
  event: 'screenshot.changed',
  websiteName: 'News',
  url: 'https://news.example/',
  changedRatio: 0.02,
  textDiff: null,
  error: null,
  links: { compare: null, screenshot: 'https://s.example/dashboard/screenshots/9', image: null, job: null },
  ...over,
});

describe('a message quotes the capture’s warnings', () => {
  it('each warning as a note, in its words, at most three, on every channel', () => {
    const warnings = [
      '1 request never answered and the picture was taken without it: ads.example/pixel.gif.',
      'An animation was still running (it loops): the picture shows one moment of it.',
      'The page is 40000 px tall; the picture stops at 32768 px (the maximum height).',
      'A fourth one that is not quoted.',
    ];
    const { lines } = summary(facts({ warnings }));

    expect(lines.filter((line) => line.startsWith('Note: '))).toEqual(warnings.slice(0, 3).map((w) => `Note: ${w}`));
    expect(emailMessage(facts({ warnings })).text).toContain('Note: 1 request never answered');
    expect(JSON.stringify(slackMessage(facts({ warnings })))).toContain('Note: An animation was still running');
  });

  it('no warnings, no notes', () => {
    expect(summary(facts()).lines.some((line) => line.startsWith('Note: '))).toBe(false);
  });
});
