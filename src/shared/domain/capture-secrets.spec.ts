import { cookieDomainAllowed, isFirstParty, isForbiddenHeader, keepRedacted, mergeSecrets, REDACTED, redactSecrets, secretConflicts } from './capture-secrets';

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
