import { signRenderUrl } from './signing';

/**
 * The expected links are written out by hand and their signatures computed outside node, e.g.
 *   printf '%s' 'url=https%3A%2F%2Fexample.com&access_key=rk_1' | openssl dgst -sha256 -hmac 'secret'
 * so an encoding or HMAC mistake in signRenderUrl cannot agree with itself.
 */
describe('signRenderUrl (API.md, "Signed links")', () => {
  it('signs the query as written before &signature=, access_key last when there is no expiry', () => {
    expect(signRenderUrl({ baseUrl: 'https://shots.example.com', accessKey: 'rk_1', secret: 'secret', params: { url: 'https://example.com' } })).toBe(
      'https://shots.example.com/render?url=https%3A%2F%2Fexample.com&access_key=rk_1' +
        '&signature=1f3f3f2b566fbbef7401ff6507e03a385d6955c72959b61fd931dedab4b5f3c2',
    );
  });

  it('keeps the options in their order, writes booleans and numbers as text, and adds expires (a Date) after access_key', () => {
    const link = signRenderUrl({
      baseUrl: 'https://shots.example.com/',
      accessKey: 'rk_live_4f2a',
      secret: 'rs_s3cr3t+/=',
      params: { url: 'https://example.com/page?a=1&b=2', full_page: true, viewport_width: 390, cache_key: undefined },
      expires: new Date('2026-01-01T00:00:00Z'),
    });
    expect(link).toBe(
      'https://shots.example.com/render?url=https%3A%2F%2Fexample.com%2Fpage%3Fa%3D1%26b%3D2&full_page=true&viewport_width=390' +
        '&access_key=rk_live_4f2a&expires=1767225600&signature=0a85d2731ab53412996c335f46ee6f188514a1e6f6504b6030112f18f8ff0395',
    );
  });

  it('percent-encodes UTF-8, spaces as %20 (never +), repeats the key of a list, and takes expires in unix seconds', () => {
    const link = signRenderUrl({
      baseUrl: 'http://127.0.0.1:3000',
      accessKey: 'rk_1',
      secret: 'secret',
      params: { url: 'https://example.com/?q=café & crème', remove_selectors: ['.ad', '#cookie-banner'] },
      expires: 0,
    });
    expect(link).toBe(
      'http://127.0.0.1:3000/render?url=https%3A%2F%2Fexample.com%2F%3Fq%3Dcaf%C3%A9%20%26%20cr%C3%A8me' +
        '&remove_selectors=.ad&remove_selectors=%23cookie-banner&access_key=rk_1&expires=0' +
        '&signature=db27f4f4314fe634b0b414591055e4ffcc83d4a0d278937107e79b61c66821cc',
    );
  });

  it('refuses parameters it sets itself, and an expiry that is not whole unix seconds', () => {
    const base = { baseUrl: 'http://x', accessKey: 'rk_1', secret: 's' };
    // @ts-expect-error the type has no such field; the check is for callers in plain JavaScript
    expect(() => signRenderUrl({ ...base, params: { url: 'https://e.com', signature: 'abc' } })).toThrow('"signature" is set by signRenderUrl');
    // @ts-expect-error as above
    expect(() => signRenderUrl({ ...base, params: { url: 'https://e.com', access_key: 'other' } })).toThrow('"access_key"');
    expect(() => signRenderUrl({ ...base, params: { url: 'https://e.com' }, expires: 1.5 })).toThrow('expires must be unix seconds');
    expect(() => signRenderUrl({ ...base, params: { url: 'https://e.com' }, expires: new Date('nope') })).toThrow('expires must be unix seconds');
  });
});
