import {
  browserRefusal,
  caseDuplicate,
  cookieDomainAllowed,
  isFieldValue,
  isFirstParty,
  isForbiddenHeader,
  keepRedacted,
  mergeSecrets,
  REDACTED,
  redactSecrets,
  secretConflicts,
} from './capture-secrets';

describe('capture secrets rules', () => {
  it('first party: the website’s host and its subdomains only', () => {
    expect(isFirstParty('example.com', 'example.com')).toBe(true);
    expect(isFirstParty('www.example.com', 'example.com')).toBe(true);
    expect(isFirstParty('example.com.evil.net', 'example.com')).toBe(false);
    expect(isFirstParty('notexample.com', 'example.com')).toBe(false);
    expect(isFirstParty('cdn.other.com', 'example.com')).toBe(false);
  });

  it('cookie domains: the host or a domain it belongs to, never a bare suffix or a third party', () => {
    expect(cookieDomainAllowed('example.com', 'www.example.com')).toBe(true);
    expect(cookieDomainAllowed('.example.com', 'www.example.com')).toBe(true);
    expect(cookieDomainAllowed('com', 'www.example.com')).toBe(false);
    expect(cookieDomainAllowed('tracker.net', 'www.example.com')).toBe(false);
    expect(cookieDomainAllowed('localhost', 'localhost')).toBe(true);
    expect(
      secretConflicts(
        {
          cookies: [
            { name: 'a', value: 'b' },
            { name: 'c', value: 'd', domain: 'evil.net' },
          ],
        },
        'example.com',
      ),
    ).toEqual([{ field: 'cookies[1].domain', message: expect.stringContaining('example.com') }]);
  });

  it('an IP host has no parent domains: only the very address is its cookie domain (issue 27)', () => {
    expect(cookieDomainAllowed('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(cookieDomainAllowed('.127.0.0.1', '127.0.0.1')).toBe(true);
    for (const suffix of ['0.0.1', '.0.0.1', '0.1', '1', '27.0.0.1'])
      expect({ suffix, ok: cookieDomainAllowed(suffix, '127.0.0.1') }).toEqual({ suffix, ok: false });
    expect(cookieDomainAllowed('[::1]', '[::1]')).toBe(true);
    expect(cookieDomainAllowed(':1]', '[::1]')).toBe(false);
    expect(cookieDomainAllowed('10.0.0.1', 'example.com')).toBe(false);
    expect(isFirstParty('a.127.0.0.1', '127.0.0.1')).toBe(false);
    expect(isFirstParty('127.0.0.1', '127.0.0.1')).toBe(true);
  });

  it('field values: RFC 9110 characters only — no C0 control but HTAB, no DEL', () => {
    for (const ok of ['plain', 'with\ttab', 'Mozilla/5.0 (X11; Linux)', 'ünïcödé', '']) expect({ ok, valid: isFieldValue(ok) }).toEqual({ ok, valid: true });
    for (const bad of ['a\r\nX-Injected: 1', 'a\n', 'a\r', 'a\u0000', 'a\u0001', 'a\u001f', 'a\u007f']) {
      expect({ bad, valid: isFieldValue(bad) }).toEqual({ bad, valid: false });
    }
  });

  it('header names that repeat another but for case are found', () => {
    expect(caseDuplicate(['X-A', 'X-B', 'x-a'])).toEqual({ name: 'x-a', first: 'X-A' });
    expect(caseDuplicate(['X-A', 'X-B'])).toBeNull();
  });

  it('stored values a browser refuses are named before any browser sees them', () => {
    expect(browserRefusal({ userAgent: 'UA\r\nX: 1' })).toMatch(/^The user agent has characters a browser refuses/);
    expect(browserRefusal({ userAgent: 'UA\u007f' })).toMatch(/^The user agent has characters a browser refuses/);
    expect(browserRefusal({ secrets: { headers: { 'X-Ok': 'fine', 'X-Key': 'a\u0001b' } } })).toMatch(/^The header X-Key has characters a browser refuses/);
    expect(browserRefusal({ secrets: { headers: { 'Bad Name': 'v' } } })).toMatch(/^The header name "Bad Name" is not a valid HTTP header name/);
    expect(browserRefusal({ secrets: { headers: { 'X-A': '1', 'x-a': '2' } } })).toMatch(/^The header x-a is set twice/);
    expect(browserRefusal({ secrets: { cookies: [{ name: 's', value: 'a\nb' }] } })).toMatch(/^The cookie "s" has characters a browser refuses/);
    expect(browserRefusal({ userAgent: 'Mozilla/5.0', secrets: { headers: { 'X-A': 'v\tw' }, cookies: [{ name: 's', value: 'v' }] } })).toBeNull();
  });

  it.each(['Host', 'cookie', 'Content-Length', 'Connection', 'Transfer-Encoding', 'Proxy-Authorization'])('%s is refused', (name) => {
    expect(isForbiddenHeader(name)).toBe(true);
  });

  it('redaction keeps names and flags, hides values; echoing REDACTED keeps the stored value', () => {
    const stored = { headers: { 'X-Key': 'k1' }, cookies: [{ name: 's', value: 'v1', path: '/app' }], httpAuth: { username: 'u', password: 'p' } };
    const shown = redactSecrets(stored);
    expect(shown).toEqual({
      headers: { 'X-Key': REDACTED },
      cookies: [{ name: 's', value: REDACTED, path: '/app' }],
      httpAuth: { username: REDACTED, password: REDACTED },
    });
    expect(keepRedacted(shown, stored)).toEqual(stored);
    expect(keepRedacted({ headers: { 'x-key': REDACTED, 'X-New': 'n' } }, stored)).toEqual({ headers: { 'x-key': 'k1', 'X-New': 'n' } });
  });

  it('the request’s headers, cookies and credentials each replace the website’s', () => {
    expect(mergeSecrets({ headers: { A: '1' } }, { headers: { B: '2' }, httpAuth: { username: 'u', password: 'p' } })).toEqual({
      headers: { A: '1' },
      httpAuth: { username: 'u', password: 'p' },
    });
    expect(mergeSecrets(undefined, undefined)).toEqual({});
  });
});
