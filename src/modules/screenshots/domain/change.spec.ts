import { changedRatio, changeView, clipBoxes, compareKey, ComparableSettings, isChanged, parseBoxes } from './change';

const SETTINGS: ComparableSettings = {
  viewportWidth: 1280,
  viewportHeight: 800,
  deviceScaleFactor: 1,
  device: null,
  fullPage: false,
  selector: null,
  clip: null,
};

describe('change history rules', () => {
  it('compareKey: equal settings give one key; each setting that changes the picture gives another', () => {
    expect(compareKey({ ...SETTINGS })).toBe(compareKey(SETTINGS));
    expect(compareKey(SETTINGS)).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const variants: ComparableSettings[] = [
      { ...SETTINGS, viewportWidth: 1281 },
      { ...SETTINGS, viewportHeight: 801 },
      { ...SETTINGS, deviceScaleFactor: 2 },
      { ...SETTINGS, device: 'iPhone 15 Pro' },
      { ...SETTINGS, fullPage: true },
      { ...SETTINGS, selector: '#main' },
      { ...SETTINGS, clip: { x: 0, y: 0, width: 100, height: 100 } },
      { ...SETTINGS, clip: { x: 0, y: 0, width: 100, height: 101 } },
    ];
    const keys = new Set([compareKey(SETTINGS), ...variants.map((v) => compareKey(v))]);
    expect(keys.size).toBe(variants.length + 1);
  });

  it('changedRatio: changed pixels over the union of both areas, the part outside the overlap counted as changed', () => {
    const size = { width: 1280, height: 800 };
    expect(changedRatio({ changedInOverlap: 0, newer: size, older: size })).toBe(0);
    expect(changedRatio({ changedInOverlap: 20000, newer: size, older: size })).toBeCloseTo(20000 / 1024000, 6);
    // A full page that grew from 1000 to 1200 rows: 200 of 1200 rows are new.
    expect(changedRatio({ changedInOverlap: 0, newer: { width: 1280, height: 1200 }, older: { width: 1280, height: 1000 } })).toBeCloseTo(200 / 1200, 6);
    // ...or shrank: the rows it lost count too.
    expect(changedRatio({ changedInOverlap: 1280, newer: { width: 1280, height: 1000 }, older: { width: 1280, height: 1200 } })).toBeCloseTo(
      (1280 + 200 * 1280) / (1280 * 1200),
      6,
    );
    expect(changedRatio({ changedInOverlap: 0, newer: { width: 0, height: 0 }, older: { width: 0, height: 0 } })).toBe(0);
  });

  it('isChanged: strictly above the threshold', () => {
    expect([isChanged(0, 0), isChanged(0.001, 0.001), isChanged(0.0011, 0.001), isChanged(1, 1)]).toEqual([false, false, true, false]);
  });

  it('clipBoxes: rounded outward to whole pixels, cut to the image, boxes outside it dropped', () => {
    expect(clipBoxes([[10.4, 20.6, 5.2, 5.2]], 100, 100)).toEqual([[10, 20, 6, 6]]);
    expect(clipBoxes([[-5, -5, 10, 10]], 100, 100)).toEqual([[0, 0, 5, 5]]);
    expect(clipBoxes([[95, 95, 10, 10]], 100, 100)).toEqual([[95, 95, 5, 5]]);
    expect(
      clipBoxes(
        [
          [200, 0, 10, 10],
          [0, 0, 0, 10],
        ],
        100,
        100,
      ),
    ).toEqual([]);
  });

  it('parseBoxes: only lists of four finite numbers survive', () => {
    expect(parseBoxes('[[1,2,3,4],[1,2,3],["a",1,2,3],[1,2,3,4,5]]')).toEqual([[1, 2, 3, 4]]);
    expect([parseBoxes(null), parseBoxes('not json'), parseBoxes('{"a":1}')]).toEqual([[], [], []]);
  });

  it('changeView: null, pending (previous_id + status) or the outcome, as the API shows it', () => {
    expect(changeView(null)).toBeNull();
    expect(changeView({ previousId: 4, status: 'pending', changedRatio: null, changed: null, comparedAt: null, textDiff: null })).toEqual({
      previous_id: 4,
      status: 'pending',
    });
    const comparedAt = new Date('2026-12-01T08:00:00Z');
    expect(changeView({ previousId: 4, status: 'done', changedRatio: 0.25, changed: true, comparedAt, textDiff: null })).toEqual({
      previous_id: 4,
      changed_ratio: 0.25,
      changed: true,
      compared_at: '2026-12-01T08:00:00.000Z',
      text_changed: false,
      text_diff: null,
    });
    // Text changes: a text diff with a line either way is text_changed; 0/0 is not.
    const text = (added: number, removed: number) =>
      changeView({ previousId: 4, status: 'done', changedRatio: 0.0005, changed: added + removed > 0, comparedAt, textDiff: { added, removed } });
    expect(text(1, 1)).toMatchObject({ changed: true, text_changed: true, text_diff: { added: 1, removed: 1 } });
    expect(text(0, 0)).toMatchObject({ changed: false, text_changed: false, text_diff: { added: 0, removed: 0 } });
    expect(text(0, 2)).toMatchObject({ text_changed: true, text_diff: { added: 0, removed: 2 } });
  });

  it('compareKey with the other picture options: unused options keep the plain key (existing histories go on); each used one makes another', () => {
    const plain = compareKey(SETTINGS);
    expect(compareKey(SETTINGS, { hide_selectors: [], css: null, dark_mode: false, user_agent: undefined, locale: '' })).toBe(plain);
    const used: Array<Record<string, unknown>> = [
      { hide_selectors: ['.ad'] },
      { hide_selectors: ['.ad', '.promo'] },
      { css: 'h1{color:red}' },
      { dark_mode: true },
      { block_ads: true },
      { block_resources: ['image'] },
      { user_agent: 'Bot/1' },
      { scripts: ['document.body.className = "x"'] },
    ];
    const keys = new Set([plain, ...used.map((picture) => compareKey(SETTINGS, picture))]);
    expect(keys.size).toBe(used.length + 1);
    // The order options are given in does not matter.
    expect(compareKey(SETTINGS, { css: 'a', dark_mode: true })).toBe(compareKey(SETTINGS, { dark_mode: true, css: 'a' }));
  });
});
