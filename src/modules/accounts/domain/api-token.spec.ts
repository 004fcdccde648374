import { hashToken, isWellFormedToken, issueToken } from './api-token';

describe('API tokens', () => {
  it('stores the SHA-256 hex of the secret (the column tokens issued by any earlier release were written with)', () => {
    // sha256("abc"), FIPS 180-2 appendix B.1.
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('issues a well-formed secret whose hash is the one stored, and shows only its first 8 characters', () => {
    const issued = issueToken();
    expect(isWellFormedToken(issued.secret)).toBe(true);
    expect(issued.hash).toBe(hashToken(issued.secret));
    expect(issued.displayPrefix).toBe(issued.secret.slice(0, 8));
    expect(isWellFormedToken(`${issued.secret}x`)).toBe(false);
  });
});
