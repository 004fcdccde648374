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

describe('batch.completed', () => {
  it('names the batch and says how it went', () => {
    const batch = { name: 'Competitors', total: 40, succeeded: 37, failed: 1, cancelled: 2 };
    const { title, lines } = summary(facts({ event: 'batch.completed', websiteName: null, url: null, changedRatio: null, batch }));
    expect(title).toBe('Batch "Competitors" finished');
    expect(lines).toEqual(['37 of 40 captured, 1 failed, 2 cancelled']);
    expect(summary(facts({ event: 'batch.completed', websiteName: null, url: null, batch: { ...batch, name: null, cancelled: 0 } })).title).toBe(
      'Batch finished',
    );
  });
});
