import { classifyAddress } from './address-classifier';
import { HostResolver, UrlPolicy, UrlPolicyOptions, UrlPolicyReasons, UrlVerdict } from './index';

/**
 * No test may touch the network: every policy gets a stub resolver. IP literals and
 * localhost names must not reach the resolver at all, which the call log proves.
 */
const DNS: Readonly<Record<string, string[]>> = {
  'example.com': ['93.184.215.14'],
  'example.com.': ['93.184.215.14'],
  'v6only.test': ['2606:4700::1111'],
  'rebind.test': ['127.0.0.1'],
  'mixed.test': ['93.184.215.14', '10.1.2.3'],
  'mixed-v6.test': ['93.184.215.14', '2606:4700::1111', 'fe80::1'],
  'metadata.test': ['169.254.169.254'],
  'ula.test': ['fd00::1'],
  'mapped.test': ['::ffff:192.168.0.1'],
  'empty.test': [],
};

interface StubResolver {
  resolve: HostResolver;
  calls: string[];
}

function stubResolver(): StubResolver {
  const calls: string[] = [];
  const resolve: HostResolver = async (hostname) => {
    calls.push(hostname);
    if (hostname === 'hang.test') return new Promise<string[]>(() => undefined);
    const answer = DNS[hostname];
    if (answer === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return [...answer];
  };
  return { resolve, calls };
}

function makePolicy(overrides: Partial<UrlPolicyOptions> = {}): { policy: UrlPolicy; calls: string[] } {
  const stub = stubResolver();
  const policy = new UrlPolicy({
    allowPrivateNetworks: false,
    allowlist: [],
    resolve: stub.resolve,
    ...overrides,
  });
  return { policy, calls: stub.calls };
}

function reasonOf(verdict: UrlVerdict): string | undefined {
  return verdict.allowed ? undefined : verdict.reason;
}

const R = UrlPolicyReasons;

describe('UrlPolicy (policy on, allowPrivateNetworks false)', () => {
  // [url, expected reason, whether the resolver may be consulted]
  const refused: Array<[string, string, boolean]> = [
    // schemes: refused after parsing, whatever the case
    ['file:///etc/passwd', R.scheme, false],
    ['FILE:///etc/passwd', R.scheme, false],
    ['view-source:http://127.0.0.1/', R.scheme, false],
    ['chrome://version', R.scheme, false],
    ['javascript:alert(1)', R.scheme, false],
    ['data:text/html,hi', R.scheme, false],
    ['ftp://example.com/', R.scheme, false],
    ['ws://example.com/', R.scheme, false],
    // loopback in every notation the URL parser normalises
    ['http://127.0.0.1:6379/', 'url resolves to a loopback address', false],
    ['http://localhost/', 'url resolves to a loopback address', false],
    ['http://localhost./', 'url resolves to a loopback address', false],
    ['http://localhost../', 'url resolves to a loopback address', false],
    ['http://LOCALHOST:8080/', 'url resolves to a loopback address', false],
    ['http://x.localhost/', 'url resolves to a loopback address', false],
    ['http://a.b.localhost./', 'url resolves to a loopback address', false],
    ['http://local%68ost/', 'url resolves to a loopback address', false],
    ['http://[::1]/', 'url resolves to a loopback address', false],
    ['http://[::ffff:127.0.0.1]/', 'url resolves to a loopback address', false],
    ['http://[::ffff:7f00:1]/', 'url resolves to a loopback address', false],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'url resolves to a loopback address', false],
    ['http://0.0.0.0/', 'url resolves to an unspecified address', false],
    ['http://0/', 'url resolves to an unspecified address', false],
    ['http://[::]/', 'url resolves to an unspecified address', false],
    ['http://2130706433/', 'url resolves to a loopback address', false],
    ['http://0x7f000001/', 'url resolves to a loopback address', false],
    ['http://017700000001/', 'url resolves to a loopback address', false],
    ['http://127.1/', 'url resolves to a loopback address', false],
    ['http://0x7f.1/', 'url resolves to a loopback address', false],
    ['http://127.0.0.1./', 'url resolves to a loopback address', false],
    ['http://%31%32%37.0.0.1/', 'url resolves to a loopback address', false],
    // cloud metadata
    ['http://169.254.169.254/latest/meta-data/', 'url resolves to a link-local address', false],
    ['http://[fd00:ec2::254]/', 'url resolves to a private address', false],
    // private networks: the exact phrase is part of the contract
    ['http://10.0.0.1/', 'url resolves to a private address', false],
    ['http://172.16.0.1/', 'url resolves to a private address', false],
    ['http://192.168.1.1/', 'url resolves to a private address', false],
    ['http://100.64.0.1/', 'url resolves to a carrier-grade NAT address', false],
    ['http://[fe80::1]/', 'url resolves to a link-local address', false],
    ['http://224.0.0.1/', 'url resolves to a multicast address', false],
    ['http://255.255.255.255/', 'url resolves to a broadcast address', false],
    ['http://192.0.2.1/', 'url resolves to a reserved address', false],
    ['http://[2001:db8::1]/', 'url resolves to a reserved address', false],
    // credentials
    ['http://user:pass@example.com/', R.credentials, false],
    ['http://user@example.com/', R.credentials, false],
    ['http://:pass@example.com/', R.credentials, false],
    // names whose records point inside (resolved through the stub)
    ['http://rebind.test/', 'url resolves to a loopback address', true],
    ['http://mixed.test/', 'url resolves to a private address', true],
    ['http://mixed-v6.test/', 'url resolves to a link-local address', true],
    ['http://metadata.test/', 'url resolves to a link-local address', true],
    ['http://ula.test/', 'url resolves to a private address', true],
    ['http://mapped.test/', 'url resolves to a private address', true],
    // IPv6 forms embedding a loopback IPv4
    ['http://[2002:7f00:1::]/', 'url resolves to a loopback address', false],
    ['http://[64:ff9b::7f00:1]/', 'url resolves to a loopback address', false],
    ['http://[64:ff9b::a9fe:a9fe]/', 'url resolves to a link-local address', false],
    ['http://[::7f00:1]/', 'url resolves to a loopback address', false],
    ['http://[2001::1]/', 'url resolves to a reserved address', false],
    // unusable input
    ['not a url', R.invalid, false],
    ['', R.invalid, false],
    ['http://', R.invalid, false],
    ['http://1.2.3.4.5/', R.invalid, false],
    [`https://example.com/${'a'.repeat(2048)}`, R.tooLong, false],
    ['http://nxdomain.test/', R.unresolvable, true],
    ['http://empty.test/', R.unresolvable, true],
  ];

  it.each(refused)('refuses %s', async (raw, reason, mayResolve) => {
    const { policy, calls } = makePolicy();
    const verdict = await policy.check(raw);
    expect(verdict.allowed).toBe(false);
    expect(reasonOf(verdict)).toBe(reason);
    if (!mayResolve) expect(calls).toEqual([]);
  });

  // Everything decidable without DNS must already be refused by the sync check,
  // so validators catch it at the API boundary.
  it.each(refused.filter(([, , mayResolve]) => !mayResolve))('checkSyntax refuses %s without resolving', (raw, reason) => {
    const { policy, calls } = makePolicy();
    expect(reasonOf(policy.checkSyntax(raw))).toBe(reason);
    expect(calls).toEqual([]);
  });

  it('accepts a URL of exactly the maximum length', async () => {
    const base = 'https://example.com/';
    const raw = base + 'a'.repeat(2048 - base.length);
    expect(raw).toHaveLength(2048);
    const { policy } = makePolicy();
    expect((await policy.check(raw)).allowed).toBe(true);
  });

  it('refuses when resolution times out', async () => {
    const { policy, calls } = makePolicy({ resolveTimeoutMs: 50 });
    const verdict = await policy.check('http://hang.test/');
    expect(reasonOf(verdict)).toBe('url host could not be resolved');
    expect(calls).toEqual(['hang.test']);
  });

  it('refuses when the resolver throws synchronously', async () => {
    const policy = new UrlPolicy({
      allowPrivateNetworks: false,
      allowlist: [],
      resolve: () => {
        throw new Error('boom');
      },
    });
    expect(reasonOf(await policy.check('http://example.com/'))).toBe(R.unresolvable);
  });

  it('refuses a resolver answer that is not an IP address', async () => {
    const { policy } = makePolicy({ resolve: async () => ['not-an-ip'] });
    expect(reasonOf(await policy.check('http://example.com/'))).toBe('url resolves to an invalid address');
  });
});

describe('UrlPolicy allowed URLs', () => {
  it('allows a public name and reports the checked addresses', async () => {
    const { policy, calls } = makePolicy();
    const verdict = await policy.check('https://example.com/');
    expect(verdict).toEqual({ allowed: true, url: new URL('https://example.com/'), addresses: ['93.184.215.14'] });
    expect(calls).toEqual(['example.com']);
  });

  it('allows a public IPv6 literal without resolving', async () => {
    const { policy, calls } = makePolicy();
    const verdict = await policy.check('http://[2606:4700::1111]/');
    expect(verdict.allowed).toBe(true);
    if (verdict.allowed) expect(verdict.addresses).toEqual(['2606:4700::1111']);
    expect(calls).toEqual([]);
  });

  it('allows a public IPv4 literal in numeric notation', async () => {
    const { policy, calls } = makePolicy();
    const verdict = await policy.check('http://134744072/'); // 8.8.8.8
    expect(verdict.allowed).toBe(true);
    if (verdict.allowed) {
      expect(verdict.url.hostname).toBe('8.8.8.8');
      expect(verdict.addresses).toEqual(['8.8.8.8']);
    }
    expect(calls).toEqual([]);
  });

  it('treats the scheme and host case-insensitively', async () => {
    const { policy } = makePolicy();
    const verdict = await policy.check('HTTP://Example.COM/');
    expect(verdict.allowed).toBe(true);
    if (verdict.allowed) expect(verdict.url.href).toBe('http://example.com/');
  });

  it('allows a name with only public IPv6 records', async () => {
    const { policy } = makePolicy();
    const verdict = await policy.check('https://v6only.test/path?q=1#frag');
    expect(verdict.allowed).toBe(true);
    if (verdict.allowed) expect(verdict.addresses).toEqual(['2606:4700::1111']);
  });

  it('resolves a trailing-dot name as written', async () => {
    const { policy, calls } = makePolicy();
    expect((await policy.check('http://example.com./')).allowed).toBe(true);
    expect(calls).toEqual(['example.com.']);
  });

  it('allows public addresses embedded in NAT64 / 6to4 / mapped forms', async () => {
    const { policy } = makePolicy();
    for (const raw of ['http://[64:ff9b::808:808]/', 'http://[2002:808:808::1]/', 'http://[::ffff:8.8.8.8]/']) {
      expect(reasonOf(await policy.check(raw))).toBeUndefined();
    }
  });

  it('checkSyntax allows a hostname without resolving it (address check deferred to check())', () => {
    const { policy, calls } = makePolicy();
    const verdict = policy.checkSyntax('http://rebind.test/');
    expect(verdict.allowed).toBe(true);
    if (verdict.allowed) expect(verdict.addresses).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('UrlPolicy with allowPrivateNetworks', () => {
  it('allows private and loopback targets without resolving them', async () => {
    const { policy, calls } = makePolicy({ allowPrivateNetworks: true });
    for (const raw of ['http://127.0.0.1:3000/', 'http://localhost:3000/', 'http://10.0.0.1/', 'http://rebind.test/']) {
      const verdict = await policy.check(raw);
      expect(verdict.allowed).toBe(true);
      if (verdict.allowed) expect(verdict.addresses).toEqual([]);
    }
    expect(calls).toEqual([]);
  });

  it.each([
    ['file:///etc/passwd', R.scheme],
    ['javascript:alert(1)', R.scheme],
    ['http://u:p@127.0.0.1/', R.credentials],
    [`http://127.0.0.1/${'a'.repeat(2100)}`, R.tooLong],
  ])('still refuses %s', async (raw, reason) => {
    const { policy } = makePolicy({ allowPrivateNetworks: true });
    expect(reasonOf(await policy.check(raw))).toBe(reason);
    expect(reasonOf(policy.checkSyntax(raw))).toBe(reason);
  });
});

describe('UrlPolicy allowlist', () => {
  const allowlist = ['http://127.0.0.1:4000', 'http://intranet.local:8080/ignored/path'];

  it('skips the address check for an allowlisted origin', async () => {
    const { policy, calls } = makePolicy({ allowlist });
    const verdict = await policy.check('http://127.0.0.1:4000/x');
    expect(verdict.allowed).toBe(true);
    if (verdict.allowed) expect(verdict.addresses).toEqual([]);
    expect((await policy.check('http://intranet.local:8080/dashboard')).allowed).toBe(true);
    expect(calls).toEqual([]);
  });

  it.each([
    ['http://127.0.0.1:4001/', 'url resolves to a loopback address'],
    ['https://127.0.0.1:4000/', 'url resolves to a loopback address'], // different scheme = different origin
    ['http://localhost:4000/', 'url resolves to a loopback address'], // different host = different origin
    ['http://intranet.local/', R.unresolvable], // default port is not 8080
    ['http://u:p@127.0.0.1:4000/', R.credentials], // the allowlist never relaxes credentials
  ])('refuses %s', async (raw, reason) => {
    const { policy } = makePolicy({ allowlist });
    expect(reasonOf(await policy.check(raw))).toBe(reason);
  });

  it('normalises default ports in entries', async () => {
    const { policy } = makePolicy({ allowlist: ['http://10.0.0.5:80'] });
    expect((await policy.check('http://10.0.0.5/')).allowed).toBe(true);
  });

  it.each(['not a url', 'file:///etc', 'http://u:p@intranet.local'])('rejects allowlist entry %s at construction', (entry) => {
    expect(() => makePolicy({ allowlist: [entry] })).toThrow(/allowlist entry/);
  });
});

describe('classifyAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1', // just outside 172.16/12
    '100.63.255.255', // just below 100.64/10
    '100.128.0.0', // just above 100.64/10
    '169.253.255.255',
    '2606:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });

  it.each([
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd00:ec2::254', 'unique local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'], // outside 2000::/3
    // embedded IPv4
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::127.0.0.1', 'loopback'], // IPv4-compatible
    ['::a00:1', 'private'],
    ['::8.8.8.8', 'reserved'], // IPv4-compatible is deprecated even with a public address
    ['::ffff:0:a00:1', 'private'], // SIIT IPv4-translated
    ['2002:7f00:1::', 'loopback'], // 6to4
    ['2002:c0a8:101::1', 'private'],
    ['2002:a9fe:a9fe::', 'link-local'],
    ['64:ff9b::7f00:1', 'loopback'], // NAT64 well-known prefix
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b:1::a00:1', 'private'], // NAT64 local-use prefix
    ['2001::1', 'reserved'], // Teredo
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ])('%s is %s', (ip, reason) => {
    expect(classifyAddress(ip)).toBe(reason);
  });

  it.each(['', 'not-an-ip', 'example.com', '127.1', '0x7f000001', '2130706433', '010.0.0.1', '[::1]', '1.2.3.4.5'])(
    'non-canonical or invalid input %p fails closed',
    (ip) => {
      expect(classifyAddress(ip)).toBe('invalid');
    },
  );
});
