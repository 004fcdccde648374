import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie, SIGN_IN_CSRF_COOKIE } from './cookies';

const requestWith = (cookie: string | undefined, protocol: 'http' | 'https' = 'http') =>
  ({ headers: cookie === undefined ? {} : { cookie }, protocol }) as unknown as FastifyRequest;

/** A reply that records the Set-Cookie lines written to it. */
function recordingReply(): { reply: FastifyReply; lines: string[] } {
  const lines: string[] = [];
  const reply = {
    header(name: string, value: string) {
      if (name.toLowerCase() === 'set-cookie') lines.push(value);
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, lines };
}

describe('dashboard cookies', () => {
  describe('readCookie', () => {
    it('finds the named cookie among others, whatever the spacing', () => {
      const request = requestWith(`theme=dark;${SESSION_COOKIE}=abc123 ;  ${SIGN_IN_CSRF_COOKIE}=tok`);
      expect(readCookie(request, SESSION_COOKIE)).toBe('abc123');
      expect(readCookie(request, SIGN_IN_CSRF_COOKIE)).toBe('tok');
      expect(readCookie(request, 'theme')).toBe('dark');
    });

    it('is undefined without a Cookie header, with an empty one, or when the name is absent', () => {
      expect(readCookie(requestWith(undefined), SESSION_COOKIE)).toBeUndefined();
      expect(readCookie(requestWith(''), SESSION_COOKIE)).toBeUndefined();
      expect(readCookie(requestWith('other=1'), SESSION_COOKIE)).toBeUndefined();
    });

    it('matches the whole name, not a prefix or suffix of another one', () => {
      expect(readCookie(requestWith('sst_session_old=x; my_sst_session=y'), SESSION_COOKIE)).toBeUndefined();
    });

    it('takes the first value when the name is sent twice', () => {
      expect(readCookie(requestWith(`${SESSION_COOKIE}=first; ${SESSION_COOKIE}=second`), SESSION_COOKIE)).toBe('first');
    });

    it('decodes percent-encoding and keeps an "=" inside the value', () => {
      expect(readCookie(requestWith(`${SESSION_COOKIE}=a%20b%3Bc`), SESSION_COOKIE)).toBe('a b;c');
      expect(readCookie(requestWith(`${SESSION_COOKIE}=a=b==`), SESSION_COOKIE)).toBe('a=b==');
    });

    it('reads an empty value as the empty string (a cleared cookie a browser still sends)', () => {
      expect(readCookie(requestWith(`${SESSION_COOKIE}=`), SESSION_COOKIE)).toBe('');
    });

    it('treats a value that is not valid percent-encoding as no cookie at all', () => {
      expect(readCookie(requestWith(`${SESSION_COOKIE}=%E0%A4%A`), SESSION_COOKIE)).toBeUndefined();
      expect(readCookie(requestWith(`${SESSION_COOKIE}=%`), SESSION_COOKIE)).toBeUndefined();
    });

    it('does not mistake a pair without "=" or an inherited property for a cookie', () => {
      expect(readCookie(requestWith(`${SESSION_COOKIE}; other=1`), SESSION_COOKIE)).toBeUndefined();
      expect(readCookie(requestWith('a=1'), 'constructor')).toBeUndefined();
      expect(readCookie(requestWith('a=1'), '__proto__')).toBeUndefined();
    });
  });

  describe('setCookie', () => {
    it('writes an HTTP-only, SameSite=Lax cookie scoped to /dashboard with its lifetime, not Secure over http', () => {
      const { reply, lines } = recordingReply();
      setCookie(reply, requestWith(undefined), null, SESSION_COOKIE, 'secret-value', 43200);
      expect(lines).toEqual([`${SESSION_COOKIE}=secret-value; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=43200`]);
    });

    it('adds Secure when the request came over https', () => {
      const { reply, lines } = recordingReply();
      setCookie(reply, requestWith(undefined, 'https'), null, SIGN_IN_CSRF_COOKIE, 'tok', 3600);
      expect(lines).toEqual([`${SIGN_IN_CSRF_COOKIE}=tok; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=3600; Secure`]);
    });

    it('adds Secure when the public URL is https, even behind a plain-http hop', () => {
      const { reply, lines } = recordingReply();
      setCookie(reply, requestWith(undefined, 'http'), 'https://shots.example.com', SESSION_COOKIE, 'v', 60);
      expect(lines[0]).toMatch(/; Secure$/);
    });

    it('does not add Secure for an http public URL', () => {
      const { reply, lines } = recordingReply();
      setCookie(reply, requestWith(undefined, 'http'), 'http://shots.example.com', SESSION_COOKIE, 'v', 60);
      expect(lines[0]).not.toContain('Secure');
    });

    it('percent-encodes a value that a cookie cannot carry as it is, and readCookie gets it back', () => {
      const { reply, lines } = recordingReply();
      setCookie(reply, requestWith(undefined), null, SESSION_COOKIE, 'a b;c,d', 60);
      const pair = lines[0].split('; ')[0];
      expect(pair).toBe(`${SESSION_COOKIE}=a%20b%3Bc%2Cd`);
      expect(readCookie(requestWith(pair), SESSION_COOKIE)).toBe('a b;c,d');
    });

    it('writes Max-Age as whole seconds, never negative', () => {
      const { reply, lines } = recordingReply();
      setCookie(reply, requestWith(undefined), null, SESSION_COOKIE, 'v', 1.9);
      setCookie(reply, requestWith(undefined), null, SESSION_COOKIE, 'v', -5);
      expect(lines[0]).toContain('Max-Age=1');
      expect(lines[0]).not.toContain('Max-Age=1.9');
      expect(lines[1]).toContain('Max-Age=0');
    });

    it('refuses a cookie name a Set-Cookie header cannot carry', () => {
      const { reply, lines } = recordingReply();
      expect(() => setCookie(reply, requestWith(undefined), null, 'bad name', 'v', 60)).toThrow(TypeError);
      expect(lines).toEqual([]);
    });
  });

  describe('clearCookie', () => {
    it('sends the same cookie empty with Max-Age=0, with the same attributes', () => {
      const { reply, lines } = recordingReply();
      clearCookie(reply, requestWith(undefined), null, SESSION_COOKIE);
      clearCookie(reply, requestWith(undefined, 'https'), null, SIGN_IN_CSRF_COOKIE);
      expect(lines).toEqual([
        `${SESSION_COOKIE}=; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=0`,
        `${SIGN_IN_CSRF_COOKIE}=; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=0; Secure`,
      ]);
    });
  });
});
