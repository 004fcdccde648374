import { parse, serialize } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The cookies of the dashboard. All HTTP-only: no script of any page ever needs to read them. */
export const SESSION_COOKIE = 'sst_session';
/** Double-submit token of the sign-in form, which is posted before any session exists. */
export const SIGN_IN_CSRF_COOKIE = 'sst_signin_csrf';
/** A token just generated, sealed, carried from the form post to the page that shows it once (Post/Redirect/Get). */
export const NEW_TOKEN_COOKIE = 'sst_new_token';
/** The same for a render key's secret. */
export const NEW_RENDER_KEY_COOKIE = 'sst_new_render_key';

/** The named cookie's value, or undefined; when the browser sends the name twice, the first one counts. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  // `cookie` splits the header; its default decoding keeps a value that is not valid percent-encoding as it
  // came, so it is read raw here and such a value, which we can never have set, counts as no cookie at all.
  const raw = parse(header, { decode: (value) => value })[name];
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** `Secure` whenever the browser reached us over HTTPS (directly, or via PUBLIC_URL / a trusted proxy). */
function isHttps(request: FastifyRequest, publicUrl: string | null): boolean {
  return request.protocol === 'https' || Boolean(publicUrl?.startsWith('https:'));
}

export function setCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string | null, name: string, value: string, maxAgeSeconds: number): void {
  // `serialize` encodes the value and refuses a name or value a Set-Cookie header cannot carry. The attributes
  // are appended here rather than passed as its options only to keep the header byte for byte as before
  // (serialize would write Max-Age first), which the dashboard's e2e suite pins.
  const attributes = [serialize(name, value), 'Path=/dashboard', 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`];
  if (isHttps(request, publicUrl)) attributes.push('Secure');
  reply.header('set-cookie', attributes.join('; ')); // Fastify appends Set-Cookie headers rather than replacing them
}

export function clearCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string | null, name: string): void {
  setCookie(reply, request, publicUrl, name, '', 0);
}
