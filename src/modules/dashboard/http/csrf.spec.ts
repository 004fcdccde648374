import type { FastifyRequest } from 'fastify';
import { checkCsrf, CSRF_FIELD, CsrfRejectedError } from './csrf';

const TOKEN = 'kGHwNVqiqIBAhYOOdSoRGbbFZymfKJCBGn6YWFpWrDI';

const requestFrom = (origin?: string, host = 'shots.local:3000', protocol: 'http' | 'https' = 'http') =>
  ({ headers: { host, ...(origin === undefined ? {} : { origin }) }, protocol }) as unknown as FastifyRequest;

describe('checkCsrf', () => {
  it('accepts the expected token from a browser that does not say where the form came from', () => {
    expect(() => checkCsrf(requestFrom(), null, TOKEN, TOKEN)).not.toThrow();
  });

  it.each([
    ['no token sent', null, TOKEN],
    ['an empty token sent', '', TOKEN],
    ['no token expected (no cookie, no session)', TOKEN, undefined],
    ['an empty expected token', TOKEN, ''],
    ['another token of the same length', TOKEN.replace(/.$/, 'x'), TOKEN],
    ['a prefix of the token', TOKEN.slice(0, 10), TOKEN],
    ['the token with more after it', `${TOKEN}x`, TOKEN],
    ['the token in another case', TOKEN.toLowerCase(), TOKEN],
  ])('refuses %s with 403', (_name, sent, expected) => {
    expect(() => checkCsrf(requestFrom(), null, sent, expected)).toThrow(CsrfRejectedError);
  });

  it('refuses a token of another length in bytes (timingSafeEqual needs equal lengths) rather than failing', () => {
    expect(() => checkCsrf(requestFrom(), null, 'é'.repeat(4), 'e'.repeat(4))).toThrow(CsrfRejectedError);
    expect(() => checkCsrf(requestFrom(), null, 'é'.repeat(4), 'é'.repeat(4))).not.toThrow();
  });

  it('is a forbidden DomainError telling the user what to do', () => {
    const error = new CsrfRejectedError();
    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(/reload the page/);
  });

  describe('Origin', () => {
    it('accepts our own origin, as the request names it (protocol and Host)', () => {
      expect(() => checkCsrf(requestFrom('http://shots.local:3000'), null, TOKEN, TOKEN)).not.toThrow();
      expect(() => checkCsrf(requestFrom('https://shots.local', 'shots.local', 'https'), null, TOKEN, TOKEN)).not.toThrow();
    });

    it('accepts the origin of PUBLIC_URL when one is set, and nothing else then', () => {
      const publicUrl = 'https://shots.example.com';
      expect(() => checkCsrf(requestFrom(publicUrl), publicUrl, TOKEN, TOKEN)).not.toThrow();
      expect(() => checkCsrf(requestFrom('http://shots.local:3000'), publicUrl, TOKEN, TOKEN)).toThrow(CsrfRejectedError);
    });

    it.each(['https://evil.example', 'http://shots.local:3001', 'https://shots.local:3000', 'http://shots.local:3000.evil.example', 'http://shots.local'])(
      'refuses a post from %s even with the right token',
      (origin) => {
        expect(() => checkCsrf(requestFrom(origin), null, TOKEN, TOKEN)).toThrow(CsrfRejectedError);
      },
    );

    it('refuses "Origin: null" (a sandboxed iframe, a data: page, a cross-origin redirect) even with the right token', () => {
      expect(() => checkCsrf(requestFrom('null'), null, TOKEN, TOKEN)).toThrow(CsrfRejectedError);
      expect(() => checkCsrf(requestFrom('null'), 'https://shots.example.com', TOKEN, TOKEN)).toThrow(CsrfRejectedError);
      expect(() => checkCsrf(requestFrom('null'), null, 'wrong', TOKEN)).toThrow(CsrfRejectedError);
    });

    it('refuses an empty Origin header with the right token (it names no origin of ours)', () => {
      expect(() => checkCsrf(requestFrom(''), null, TOKEN, TOKEN)).toThrow(CsrfRejectedError);
    });

    it('checks the token before the origin: our own origin without the token is still refused', () => {
      expect(() => checkCsrf(requestFrom('http://shots.local:3000'), null, null, TOKEN)).toThrow(CsrfRejectedError);
    });
  });

  it('names the hidden form field _csrf', () => {
    expect(CSRF_FIELD).toBe('_csrf');
  });
});
