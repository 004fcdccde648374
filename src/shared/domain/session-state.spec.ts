import { cookieSummaries, sessionExpiresAt, stateFromCookieSpecs, stateFromCookiesTxt, stateFromStorageState } from './session-state';

describe('session state readers', () => {
  it('cookies.txt: domain and host-only cookies, #HttpOnly_, session cookies, comments and blank lines', () => {
    const txt = [
      '# Netscape HTTP Cookie File',
      '',
      '.shop.example.com\tTRUE\t/\tTRUE\t1799999999\tsid\tabc\tdef',
      '#HttpOnly_api.example.com\tFALSE\t/v1\tFALSE\t0\ttoken\txyz',
    ].join('\r\n');
    const { state } = stateFromCookiesTxt(txt);
    expect(state?.cookies).toEqual([
      { name: 'sid', value: 'abc\tdef', domain: 'shop.example.com', hostOnly: false, path: '/', expires: 1799999999, secure: true, httpOnly: false },
      { name: 'token', value: 'xyz', domain: 'api.example.com', hostOnly: true, path: '/v1', expires: null, secure: false, httpOnly: true },
    ]);
    expect(sessionExpiresAt(state!)).toEqual(new Date(1799999999 * 1000));
    expect(cookieSummaries(state!)).toEqual([
      { name: 'sid', domain: '.shop.example.com', path: '/', expires: new Date(1799999999 * 1000).toISOString() },
      { name: 'token', domain: 'api.example.com', path: '/v1', expires: null },
    ]);
  });

  it('cookies.txt: a line that is not a cookie, a bad expiry, or no cookie at all is a problem naming the line', () => {
    expect(stateFromCookiesTxt('hello').problems[0]?.message).toMatch(/line 1 is not a cookie/);
    expect(stateFromCookiesTxt('a.com\tTRUE\t/\tFALSE\tsoon\tn\tv').problems[0]?.message).toMatch(/line 1: the expiry/);
    expect(stateFromCookiesTxt('# only a comment\n').problems[0]?.message).toMatch(/holds no cookie/);
    expect(stateFromCookiesTxt('a.com\tTRUE\t/\tFALSE\t0\tn\tv;w').problems[0]?.message).toMatch(/value a browser refuses/);
  });

  it('storage state: Playwright cookies (-1 = session, leading dot = domain cookie) and origins with their storage', () => {
    const { state } = stateFromStorageState({
      cookies: [
        { name: 'a', value: '1', domain: '.example.com', path: '/', expires: -1, httpOnly: true, secure: true, sameSite: 'Lax' },
        { name: 'b', value: '2', domain: 'www.example.com', path: '/', expires: 1800000000.5, httpOnly: false, secure: false, sameSite: 'None' },
      ],
      origins: [{ origin: 'https://www.example.com/', localStorage: [{ name: 'k', value: 'v' }] }],
    });
    expect(state?.cookies.map((c) => [c.name, c.domain, c.hostOnly, c.expires, c.sameSite])).toEqual([
      ['a', 'example.com', false, null, 'Lax'],
      ['b', 'www.example.com', true, 1800000000, 'None'],
    ]);
    expect(state?.origins).toEqual([{ origin: 'https://www.example.com', localStorage: [{ name: 'k', value: 'v' }], sessionStorage: [] }]);
    expect(stateFromStorageState({ origins: [{ origin: 'ftp://x', localStorage: [] }] }).problems[0]?.field).toBe('from.storage_state.origins[0].origin');
    expect(stateFromStorageState({ cookies: [{ name: 'a', value: '1' }] }).problems[0]?.field).toBe('from.storage_state.cookies[0]');
    expect(stateFromStorageState([]).problems[0]?.field).toBe('from.storage_state');
  });

  it('capture-option cookies: each must name its domain (a session belongs to no website)', () => {
    expect(stateFromCookieSpecs([{ name: 'a', value: '1' }]).problems[0]?.field).toBe('from.cookies[0].domain');
    expect(stateFromCookieSpecs([{ name: 'a', value: '1', domain: '.Example.com', httpOnly: true }]).state?.cookies[0]).toMatchObject({
      domain: 'example.com',
      hostOnly: false,
      httpOnly: true,
      path: '/',
      expires: null,
    });
  });
});
