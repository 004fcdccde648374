import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The key file made in the data directory when SECRETS_KEY is not set (embedded mode). */
export const SECRETS_KEY_FILE = 'secrets.key';
const VERSION = 'v1';

/**
 * Secrets at rest (API.md, Capture options: headers, cookies, http_auth): AES-256-GCM, a fresh 96-bit IV per
 * value, the tag checked on open, so a value changed in the database fails loudly instead of decrypting to
 * garbage. Sealed form: `v1.<base64url(iv | tag | ciphertext)>`.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a secrets key is 32 bytes');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /**
   * A keyed fingerprint of a secret (HMAC-SHA256): equal for equal values, so an idempotent retry can be
   * compared with its first request, while telling nothing about the value without the key.
   */
  digest(plain: string): string {
    return createHmac('sha256', this.key).update('digest:').update(plain).digest('base64url');
  }

  open(sealed: string): string {
    const [version, payload] = sealed.split('.', 2);
    if (version !== VERSION || !payload) throw new Error('not a sealed secret');
    const bytes = Buffer.from(payload, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * SECRETS_KEY when set (every process of a deployment must share it), else a key generated once into the data
 * directory with 0600 permissions and read from there on every later start.
 */
export function loadSecretsKey(configured: Buffer | null, dataDir: string): Buffer {
  if (configured) return configured;
  const file = join(dataDir, SECRETS_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // 'wx': two processes starting at once cannot both write one; the loser reads the winner's.
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  chmodSync(file, 0o600);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}
