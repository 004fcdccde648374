import type { FastifyReply, FastifyRequest } from 'fastify';

/** The two cookies of the dashboard. Both HTTP-only: no script of any page ever needs to read them. */
export const SESSION_COOKIE = 'sst_session';
/** Double-submit token of the sign-in form, which is posted before any session exists. */
export const SIGN_IN_CSRF_COOKIE = 'sst_signin_csrf';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined; // not valid percent-encoding: no value we could have set, so no cookie at all
      }
    }
  }
  return undefined;
}

/** `Secure` whenever the browser reached us over HTTPS (directly, or via PUBLIC_URL / a trusted proxy). */
function isHttps(request: FastifyRequest, publicUrl: string | null): boolean {
  return request.protocol === 'https' || Boolean(publicUrl?.startsWith('https:'));
}

export function setCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string | null, name: string, value: string, maxAgeSeconds: number): void {
  const attributes = [
    `${name}=${encodeURIComponent(value)}`,
    'Path=/dashboard',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
  ];
  if (isHttps(request, publicUrl)) attributes.push('Secure');
  reply.header('set-cookie', attributes.join('; ')); // Fastify appends Set-Cookie headers rather than replacing them
}

export function clearCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string | null, name: string): void {
  setCookie(reply, request, publicUrl, name, '', 0);
}
