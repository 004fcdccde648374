import { InvalidSignatureError, LinkExpiredError, newAccessKey, newRenderSecret, parseSignedLink, signRenderQuery, verifySignedLink } from './render-key';

/**
 * The vectors were computed outside this code, with OpenSSL:
 *   printf '%s' "<query>" | openssl dgst -sha256 -hmac "<secret>"
 */
const SECRET = 'rks_00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
const KEY = 'rk_0123456789abcdef01234567';
const VECTORS = [
  {
    query: `url=https%3A%2F%2Fexample.com%2F&full_page=true&access_key=${KEY}&expires=1800000000`,
    signature: 'bed834371d0e65e7daa574b705c61a01183ffaab6390a94ac976670d5230aff2',
  },
  // Unencoded `/`, `:` and `?` as a browser may send them; %26 stays %26 (the bytes as sent are signed).
  {
    query: `access_key=${KEY}&url=https://example.com/?a=1%26b=2&format=png`,
    signature: '74d86c54cdf391ddb553876a5983d64ab4e606eedc20765d5aed6584622aa087',
  },
  {
    query: `url=https%3A%2F%2Fexample.com&viewport_width=390&access_key=${KEY}`,
    signature: '23abe30a08d1f79f6f6194159014d954d4c2bc68f6e009b7757f587042eda421',
  },
];

const BEFORE_EXPIRY = new Date(1_799_999_999_000);

function verify(rawQuery: string, secret: string | null = SECRET, now = BEFORE_EXPIRY): void {
  verifySignedLink(parseSignedLink(rawQuery), secret, now);
}

function codeOf(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof InvalidSignatureError || err instanceof LinkExpiredError) return err.code;
    throw err;
  }
}

describe('signed render links', () => {
  it.each(VECTORS)('signs like OpenSSL: $signature', ({ query, signature }) => {
    expect(signRenderQuery(query, SECRET)).toBe(`${query}&signature=${signature}`);
    expect(signRenderQuery(`?${query}`, SECRET)).toBe(`${query}&signature=${signature}`);
    expect(() => verify(`${query}&signature=${signature}`)).not.toThrow();
    expect(() => verify(`?${query}&signature=${signature}`)).not.toThrow();
  });

  it('reads the key and the expiry from the signed part', () => {
    const link = parseSignedLink(`${VECTORS[0].query}&signature=${VECTORS[0].signature}`);
    expect(link).toEqual({ signed: VECTORS[0].query, signature: VECTORS[0].signature, accessKey: KEY, expires: new Date(1_800_000_000_000) });
    expect(parseSignedLink(`${VECTORS[2].query}&signature=${VECTORS[2].signature}`).expires).toBeNull();
  });

  it('a link past its expires is link_expired (at the second itself too); one without expires never expires', () => {
    const link = `${VECTORS[0].query}&signature=${VECTORS[0].signature}`;
    expect(codeOf(() => verify(link, SECRET, new Date(1_800_000_000_000)))).toBe('link_expired');
    expect(codeOf(() => verify(link, SECRET, new Date(1_900_000_000_000)))).toBe('link_expired');
    expect(codeOf(() => verify(link, SECRET, new Date(1_799_999_999_999)))).toBeNull();
    expect(codeOf(() => verify(`${VECTORS[2].query}&signature=${VECTORS[2].signature}`, SECRET, new Date(4_000_000_000_000)))).toBeNull();
  });

  it('an expired link with a wrong signature is invalid_signature: only authentic links learn they expired', () => {
    const tampered = `${VECTORS[0].query.replace('1800000000', '1900000000')}&signature=${VECTORS[0].signature}`;
    expect(codeOf(() => verify(tampered, SECRET, new Date(2_000_000_000_000)))).toBe('invalid_signature');
  });

  it('any change to the signed bytes, another secret, or an unknown key is invalid_signature', () => {
    const { query, signature } = VECTORS[1];
    expect(codeOf(() => verify(`${query.replace('%26', '&')}&signature=${signature}`))).toBe('invalid_signature');
    expect(codeOf(() => verify(`${query}&signature=${signature.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`))).toBe('invalid_signature');
    expect(codeOf(() => verify(`${query}&signature=${signature}`, `${SECRET}x`))).toBe('invalid_signature');
    expect(codeOf(() => verify(`${query}&signature=${signature}`, null))).toBe('invalid_signature');
    // A deleted key's secret is unknown: even the right MAC of an empty key must not pass.
    const withEmptyKey = signRenderQuery(query, '');
    expect(codeOf(() => verify(withEmptyKey, null))).toBe('invalid_signature');
  });

  it('refuses malformed links as invalid_signature, with a message that says what is wrong', () => {
    const { query, signature } = VECTORS[2];
    const cases: Array<[string, RegExp]> = [
      [query, /ends with &signature=/],
      [`${query}&signature=${signature}&format=png`, /last query parameter/],
      [`${query}&signature=${signature.toUpperCase()}`, /64 lowercase hex/],
      [`${query}&signature=${signature.slice(1)}`, /64 lowercase hex/],
      [`${query}&signature=`, /64 lowercase hex/],
      [`signature=${signature}&${query}&signature=${signature}`, /appear once/],
      [`signature=${signature}`, /ends with/],
      [`url=x&signature=${signature}`, /access_key=/],
      [`url=x&access_key=&signature=${signature}`, /access_key=/],
      [`url=x&access_key=a&access_key=b&signature=${signature}`, /access_key=/],
      [`url=x&access_key=a&expires=soon&signature=${signature}`, /unix seconds/],
      [`url=x&access_key=a&expires=-1&signature=${signature}`, /unix seconds/],
      [`url=x&access_key=a&expires=1&expires=2&signature=${signature}`, /at most once/],
    ];
    for (const [raw, message] of cases) {
      expect(() => parseSignedLink(raw)).toThrow(message);
      expect(codeOf(() => parseSignedLink(raw))).toBe('invalid_signature');
    }
  });

  it('keys and secrets: URL-safe, random, the expected shape', () => {
    expect(newAccessKey()).toMatch(/^rk_[0-9a-f]{24}$/);
    expect(newRenderSecret()).toMatch(/^rks_[0-9a-f]{64}$/);
    expect(newRenderSecret()).not.toBe(newRenderSecret());
  });
});
