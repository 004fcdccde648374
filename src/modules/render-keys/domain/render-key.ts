/**
 * Render keys and the links they sign (API.md "Signed links"): `/render?<query>&signature=<hex>`, where the query
 * names the key (`access_key`) and may bound the link's life (`expires`, unix seconds), and `signature` — the last
 * parameter — is the lowercase hex HMAC-SHA256 of the query exactly as sent before `&signature=`, keyed with the
 * key's secret. Plain TypeScript; node:crypto only for the keys and the MAC.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../../shared/domain/domain-error';

export const RENDER_KEY_LIMITS = { nameMax: 100, perAccount: 20 } as const;

/** What a system key signs: `alert_links`, the image, diff and compare links of notifications (issue 46). */
export const SYSTEM_KEY_PURPOSES = ['alert_links'] as const;
export type SystemKeyPurpose = (typeof SYSTEM_KEY_PURPOSES)[number];

export interface RenderKeyProps {
  id: number;
  accountId: number;
  name: string | null;
  /** Public: it travels in every link (`access_key=rk_…`) and picks the key. */
  accessKey: string;
  /** The HMAC key (its UTF-8 bytes); shown once, at creation; sealed at rest. */
  secret: string;
  createdAt: Date;
}

/** `rk_` + 24 hex characters: URL-safe as is, so a link never needs to encode it. */
export function newAccessKey(): string {
  return `rk_${randomBytes(12).toString('hex')}`;
}

/** `rks_` + 64 hex characters (32 random bytes); the whole string, prefix included, is the HMAC key. */
export function newRenderSecret(): string {
  return `rks_${randomBytes(32).toString('hex')}`;
}

export class InvalidSignatureError extends DomainError {
  constructor(message = 'The link’s signature is invalid') {
    super('invalid_signature', message);
  }
}

export class LinkExpiredError extends DomainError {
  constructor(expiredAt: Date) {
    super('link_expired', `The link expired at ${expiredAt.toISOString()}`);
  }
}

const SIGNATURE_PARAM = '&signature=';
const HEX_SHA256 = /^[0-9a-f]{64}$/;
/** Unix seconds as digits only; 12 digits reach the year 33658, so anything longer is not a date. */
const UNIX_SECONDS = /^[0-9]{1,12}$/;

function hmacHex(message: string, secret: string): string {
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
}

/** The query with its signature appended: what a link's `?` is followed by. */
export function signRenderQuery(query: string, secret: string): string {
  const unsigned = query.startsWith('?') ? query.slice(1) : query;
  return `${unsigned}${SIGNATURE_PARAM}${hmacHex(unsigned, secret)}`;
}

/** A link's query taken apart, before any key is looked up. */
export interface SignedLink {
  /** Everything before `&signature=`, byte for byte as sent: what was signed. */
  signed: string;
  signature: string;
  accessKey: string;
  /** null: the link does not expire. */
  expires: Date | null;
}

/**
 * Reads a link's raw query string (not decoded, not re-serialised: the signature covers the bytes as sent).
 * Refused as `invalid_signature`: no `&signature=`, a signature that is not the last parameter or not 64 lowercase
 * hex digits, a second `signature` in the signed part, no (or more than one) `access_key`, an `expires` that is
 * not unix seconds.
 */
export function parseSignedLink(rawQuery: string): SignedLink {
  const query = rawQuery.startsWith('?') ? rawQuery.slice(1) : rawQuery;
  const at = query.lastIndexOf(SIGNATURE_PARAM);
  if (at < 0) throw new InvalidSignatureError('A signed link ends with &signature=<hex>');
  const signature = query.slice(at + SIGNATURE_PARAM.length);
  if (signature.includes('&')) throw new InvalidSignatureError('signature must be the last query parameter');
  if (!HEX_SHA256.test(signature)) throw new InvalidSignatureError('signature must be 64 lowercase hex characters (HMAC-SHA256)');
  const signed = query.slice(0, at);
  const params = new URLSearchParams(signed);
  // Another `signature` earlier would leave the reader of the query two to choose from.
  if (params.has('signature')) throw new InvalidSignatureError('signature must appear once, as the last query parameter');
  const accessKeys = params.getAll('access_key');
  if (accessKeys.length !== 1 || !accessKeys[0]) throw new InvalidSignatureError('A signed link names its render key once: access_key=<access key>');
  const expiresValues = params.getAll('expires');
  if (expiresValues.length > 1) throw new InvalidSignatureError('expires must appear at most once');
  let expires: Date | null = null;
  if (expiresValues.length === 1) {
    if (!UNIX_SECONDS.test(expiresValues[0])) throw new InvalidSignatureError('expires must be a time in unix seconds');
    expires = new Date(Number(expiresValues[0]) * 1000);
  }
  return { signed, signature, accessKey: accessKeys[0], expires };
}

/**
 * Checks a parsed link against its key's secret (null: no such key, or deleted — told apart from a wrong
 * signature by nothing) and then its expiry: only an authentic link learns that it expired. The MACs are compared
 * in constant time.
 */
export function verifySignedLink(link: SignedLink, secret: string | null, now: Date): void {
  const expected = Buffer.from(hmacHex(link.signed, secret ?? ''), 'hex');
  const given = Buffer.from(link.signature, 'hex');
  const matches = given.length === expected.length && timingSafeEqual(given, expected);
  if (!matches || secret === null) throw new InvalidSignatureError();
  if (link.expires && link.expires.getTime() <= now.getTime()) throw new LinkExpiredError(link.expires);
}
