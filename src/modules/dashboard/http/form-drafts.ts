import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import { requestOrigin } from '../../../shared/http/pagination';
import type { SecretBox } from '../../../shared/secrets/secret-box';
import { clearCookie, readCookie, setCookie } from './cookies';
import type { DashboardRequest } from './dashboard-request';

/**
 * A form posted after its session expired is not lost (issue 46): what was typed — but no secret — is kept as a
 * draft while the person signs in again, then the form comes back filled with it.
 *
 * Where the draft waits: a sealed (SecretBox: encrypted and authenticated), HTTP-only cookie on `/dashboard`, for
 * DRAFT_SECONDS — not server memory, so the page after sign-in may be answered by any instance, and no table to
 * sweep. A cookie holds ~4 KB, so a draft is compressed, and a draft still too large drops its longest fields.
 * What is never kept: the CSRF token and every hidden `_…` control, passwords, tokens, headers, cookies, HTTP
 * credentials, proxies (credentials in the URL), saved-session ids and a channel's webhook address (DRAFT_SECRETS);
 * the form asks for those again. The draft only fills a form: saving it still takes the new session's CSRF token.
 * A draft is made only for a post from our own pages (Origin, else Referer, is ours), so another site cannot
 * plant one; it is bound to the form's page, read once, and cleared by signing out.
 *
 * A draft is also bound to the account that typed it: sign-in leaves a sealed note of its account on the browser
 * (DRAFT_OWNER_COOKIE, outliving the session, cleared by signing out), the draft is sealed with that account — the
 * expired session itself may be gone from the server, so it cannot say whose it was — and only that account gets it
 * back. Whoever signs in next as another account on the same browser finds the draft dropped, never restored; a post
 * from a browser without the note keeps no draft.
 */
export const DRAFT_COOKIE = 'sst_draft';
export const DRAFT_SECONDS = 15 * 60;
/** The account that last signed in on this browser, sealed: whose drafts this browser's expired posts are. */
export const DRAFT_OWNER_COOKIE = 'sst_draft_owner';
/** The owner note outlives the session it came with (12 h), so a post made just after the session expired finds it. */
export const DRAFT_OWNER_SECONDS = 36 * 60 * 60;
/** The sealed value's upper bound (a browser keeps a cookie of ~4,096 bytes, name and attributes included). */
const DRAFT_MAX_SEALED = 3_700;

/** A form post → the page that shows that form again (the pages that restore a draft). */
const FORM_PAGES: Array<[post: RegExp, page: (m: RegExpExecArray) => string]> = [
  [/^\/dashboard\/playground$/, () => '/dashboard/playground'],
  [/^\/dashboard\/websites$/, () => '/dashboard/websites/new'],
  [/^\/dashboard\/websites\/(\d+)\/edit$/, (m) => `/dashboard/websites/${m[1]}/edit`],
  [/^\/dashboard\/websites\/(\d+)\/screenshot$/, (m) => `/dashboard/websites/${m[1]}/screenshot`],
  [/^\/dashboard\/notifications$/, () => '/dashboard/notifications'],
];

/** Fields never kept in a draft: secrets, whatever the form. */
const DRAFT_SECRETS = /^_|password|passphrase|secret|token|api_?key|^headers$|^cookies$|^http_auth\.|^proxy$|^session_id$/i;

/** The page that shows the form a post came from, when that page restores drafts; null otherwise. */
export function formPageOf(postPath: string): string | null {
  for (const [pattern, page] of FORM_PAGES) {
    const m = pattern.exec(postPath);
    if (m) return page(m);
  }
  return null;
}

/** What of a posted form a draft may keep (a webhook channel's target is its secret address; an e-mail one is not). */
export function keptFields(form: URLSearchParams): Array<[string, string]> {
  const webhookTarget = form.has('target') && form.get('type') !== 'email';
  return [...form].filter(([name]) => !DRAFT_SECRETS.test(name) && !(webhookTarget && name === 'target') && name !== 'action');
}

interface Draft {
  page: string;
  /** The account that typed it (the browser's owner note when the draft was kept). */
  account: number;
  fields: Array<[string, string]>;
}

const OWNER_PREFIX = 'draft-owner:';

/** At sign-in: this browser's drafts are now this account's (DRAFT_OWNER_COOKIE, sealed so it cannot be forged). */
export function rememberDraftOwner(reply: FastifyReply, request: DashboardRequest, box: SecretBox, publicUrl: string | null, accountId: number): void {
  setCookie(reply, request, publicUrl, DRAFT_OWNER_COOKIE, box.seal(`${OWNER_PREFIX}${accountId}`), DRAFT_OWNER_SECONDS);
}

/** The account of the browser's owner note; null without a note, or one that does not open. */
function draftOwner(request: DashboardRequest, box: SecretBox): number | null {
  const sealed = readCookie(request, DRAFT_OWNER_COOKIE);
  if (sealed === undefined) return null;
  try {
    const plain = box.open(sealed);
    if (!plain.startsWith(OWNER_PREFIX)) return null;
    const id = Number(plain.slice(OWNER_PREFIX.length));
    return Number.isSafeInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}

/** Whether the post came from one of our own pages (Origin, or Referer when the browser sent no Origin). */
function fromOurPages(request: DashboardRequest, publicUrl: string | null): boolean {
  const ours = requestOrigin(request, publicUrl);
  const origin = request.headers.origin;
  if (origin !== undefined) return origin === ours;
  const referer = request.headers.referer;
  return typeof referer === 'string' && (referer === ours || referer.startsWith(`${ours}/`));
}

function seal(box: SecretBox, draft: Draft): string {
  return box.seal(deflateRawSync(JSON.stringify(draft)).toString('base64'));
}

/**
 * Keeps what the expired session's post typed, for the page of its form and the account that signed in on this
 * browser; null when nothing can be kept (no such page, a post from elsewhere, no owner note, nothing but secrets).
 * The longest fields go first when the whole does not fit.
 */
export function keepDraft(
  reply: FastifyReply,
  request: DashboardRequest,
  box: SecretBox,
  publicUrl: string | null,
  form: URLSearchParams,
): { page: string } | null {
  const page = formPageOf(request.url.split('?')[0]);
  if (!page || !fromOurPages(request, publicUrl)) return null;
  const account = draftOwner(request, box);
  if (account === null) return null;
  const fields = keptFields(form);
  if (fields.length === 0) return null;
  let sealed = seal(box, { page, account, fields });
  while (sealed.length > DRAFT_MAX_SEALED && fields.length > 0) {
    const longest = fields.reduce((at, f, i) => (f[1].length > fields[at][1].length ? i : at), 0);
    fields.splice(longest, 1);
    sealed = seal(box, { page, account, fields });
  }
  if (fields.length === 0) return null;
  setCookie(reply, request, publicUrl, DRAFT_COOKIE, sealed, DRAFT_SECONDS);
  return { page };
}

/**
 * The draft kept for this page, once, when `accountId` (the viewer's) typed it: the cookie is cleared when it is read
 * here (a draft for another page waits for that page, at most DRAFT_SECONDS). Another account's draft is dropped, not
 * shown. Null when there is none, it is for another page or another account, or it does not open.
 */
export function takeDraft(
  reply: FastifyReply,
  request: DashboardRequest,
  box: SecretBox,
  publicUrl: string | null,
  page: string,
  accountId: number,
): URLSearchParams | null {
  const sealed = readCookie(request, DRAFT_COOKIE);
  if (sealed === undefined) return null;
  let draft: Draft;
  try {
    draft = JSON.parse(inflateRawSync(Buffer.from(box.open(sealed), 'base64')).toString('utf8')) as Draft;
  } catch {
    clearCookie(reply, request, publicUrl, DRAFT_COOKIE);
    return null; // tampered, or sealed with another key
  }
  if (draft.account !== accountId) {
    // Typed by another account before this one signed in on the browser (or a draft from before drafts had owners).
    clearCookie(reply, request, publicUrl, DRAFT_COOKIE);
    return null;
  }
  if (draft.page !== page) return null;
  clearCookie(reply, request, publicUrl, DRAFT_COOKIE);
  return new URLSearchParams(draft.fields.filter(([name]) => !DRAFT_SECRETS.test(name)));
}

/**
 * A restored draft with the form's secret fields as the page would show them without it (a website's saved headers
 * as `********`, which keep their value when sent back): the draft never held them, and a form sent without them
 * would clear them.
 */
export function withSecretsFrom(draft: URLSearchParams, shown: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams([...draft]);
  for (const [name, value] of shown) if (DRAFT_SECRETS.test(name) && !name.startsWith('_')) out.append(name, value);
  return out;
}
