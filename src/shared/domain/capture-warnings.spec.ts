import { captureWarnings, type CaptureObservations, CAPTURE_WARNING_CODES } from './capture-warnings';

const CLEAN: CaptureObservations = {
  hungRequests: [],
  parsed: true,
  animationRunning: false,
  scrollContainer: null,
  unpaintedIframes: 0,
  cut: null,
  consent: null,
};

describe('capture warnings', () => {
  it('a clean capture has none', () => {
    expect(captureWarnings(CLEAN)).toEqual([]);
  });

  it('each observation gives its code once, in words that name what to look at', () => {
    const all = captureWarnings({
      hungRequests: ['a.example/p.gif', 'b.example/tag.js', 'c.example/embed', 'd.example/font.woff2'],
      parsed: false,
      animationRunning: true,
      scrollContainer: { selector: 'main#app', whole: true },
      unpaintedIframes: 2,
      cut: { pageHeight: 40000, maxHeight: 32768 },
      consent: 'unanswered',
    });
    expect(all.map((w) => w.code)).toEqual([...CAPTURE_WARNING_CODES]);
    expect(all[0].detail).toBe(
      '4 requests never answered and the picture was taken without them: a.example/p.gif, b.example/tag.js, c.example/embed and 1 more; the page never finished loading (a script it waits for did not answer), so it was captured as far as it had been drawn.',
    );
    expect(all[2].detail).toContain('main#app');
    expect(all[3].detail).toBe('2 embedded frames below the first screen may be blank in the picture.');
  });

  it('a document that never finished parsing is flagged even with no request named', () => {
    expect(captureWarnings({ ...CLEAN, parsed: false })).toEqual([
      {
        code: 'hung_requests',
        detail: 'The page never finished loading (a script it waits for did not answer), so it was captured as far as it had been drawn.',
      },
    ]);
  });

  it('a scroll area that could not be unfolded points to the option that names it', () => {
    expect(captureWarnings({ ...CLEAN, scrollContainer: { selector: 'div.shell', whole: false } })[0].detail).toContain('full_page_scroll_selector');
  });

  it('a consent dialog left on screen: when the option was off, the detail names the option', () => {
    expect(captureWarnings({ ...CLEAN, consent: 'not_asked' })[0]).toEqual({
      code: 'consent_unanswered',
      detail: 'A cookie-consent dialog covers part of the page (block_cookie_banners: true answers it).',
    });
  });
});
