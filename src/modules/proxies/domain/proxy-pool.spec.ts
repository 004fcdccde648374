import { COOL_DOWN_MS, firstChoice, MAX_PROXIES_TRIED, maskedProxies, tryOrder } from './proxy-pool';

const state = { turn: 0, websiteId: null, random: 0 };
const none = () => 0;

describe('proxy pool rules', () => {
  it('round_robin: each capture starts one further', () => {
    expect([0, 1, 2, 3, 4].map((turn) => firstChoice('round_robin', 3, { ...state, turn }))).toEqual([0, 1, 2, 0, 1]);
  });

  it('random: spreads over the whole pool by the number drawn', () => {
    expect([0, 0.34, 0.67, 0.999].map((random) => firstChoice('random', 3, { ...state, random }))).toEqual([0, 1, 2, 2]);
  });

  it('sticky: one website always gets the same proxy, websites spread over the pool', () => {
    const forSite = (websiteId: number) => firstChoice('sticky', 4, { ...state, websiteId, turn: websiteId * 7, random: Math.random() });
    expect(forSite(17)).toBe(forSite(17));
    expect(new Set(Array.from({ length: 40 }, (_, i) => forSite(i + 1))).size).toBeGreaterThan(2);
  });

  it('tries from the choice onwards, at most MAX_PROXIES_TRIED', () => {
    expect(tryOrder('round_robin', 5, { ...state, turn: 3 }, none, 0)).toEqual([3, 4, 0].slice(0, MAX_PROXIES_TRIED));
  });

  it('a proxy cooling down is tried after the others; once the cool-down is over it is back in its turn', () => {
    const failedAt = 1_000;
    const cooling = (i: number) => (i === 1 ? failedAt + COOL_DOWN_MS : 0);
    expect(tryOrder('round_robin', 3, { ...state, turn: 1 }, cooling, failedAt + 10)).toEqual([2, 0, 1]);
    expect(tryOrder('round_robin', 3, { ...state, turn: 1 }, cooling, failedAt + COOL_DOWN_MS)).toEqual([1, 2, 0]);
  });

  it('every proxy cooling down: still tried, in rotation order', () => {
    expect(tryOrder('round_robin', 2, { ...state, turn: 1 }, () => Number.MAX_SAFE_INTEGER, 0)).toEqual([1, 0]);
  });

  it('shows proxies masked', () => {
    expect(maskedProxies({ proxies: ['http://u:pw@p.example:8080', 'socks5://10.0.0.1'] })).toEqual([
      'http://********@p.example:8080',
      'socks5://10.0.0.1:1080',
    ]);
  });
});
