import type { FastifyReply } from 'fastify';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { clearCookie, readCookie, setCookie } from './cookies';
import { DashboardRequest, DashboardViewer } from './dashboard-request';

/** Long enough for a slow redirect, short enough that a forgotten cookie does not outlive the moment. */
const SHOWN_ONCE_COOKIE_SECONDS = 300;

/** What the cookie seals: the value's own fields beside the session's (the shape both pages have always sealed). */
type Carried<T> = T & {
  /** Digest of the session's CSRF token: only the session that made the secret sees it. */
  session: string;
};

/**
 * A secret just made (an API token, a render key's secret), shown once on the page the form post redirects to
 * (Post/Redirect/Get): `carry` seals it into a short-lived cookie bound to the session, `take` opens it and clears
 * the cookie, so a reload of that page shows nothing and never makes another one. A cookie rather than server
 * memory, so the GET may reach any instance.
 */
export class ShownOnce<T extends object> {
  constructor(
    private readonly cookie: string,
    private readonly secretBox: SecretBox,
    private readonly publicUrl: string | null,
  ) {}

  carry(reply: FastifyReply, request: DashboardRequest, viewer: DashboardViewer, value: T): void {
    const carried: Carried<T> = { ...value, session: this.secretBox.digest(viewer.session.csrfToken) };
    setCookie(reply, request, this.publicUrl, this.cookie, this.secretBox.seal(JSON.stringify(carried)), SHOWN_ONCE_COOKIE_SECONDS);
  }

  /** The carried value, if the cookie is there, intact and made for this session; the answer clears the cookie. */
  take(reply: FastifyReply, request: DashboardRequest, viewer: DashboardViewer): T | null {
    const sealed = readCookie(request, this.cookie);
    if (sealed === undefined) return null;
    clearCookie(reply, request, this.publicUrl, this.cookie);
    try {
      const { session, ...value } = JSON.parse(this.secretBox.open(sealed)) as Carried<T>;
      return session === this.secretBox.digest(viewer.session.csrfToken) ? (value as unknown as T) : null;
    } catch {
      return null; // tampered, or sealed with another key: show nothing
    }
  }
}
