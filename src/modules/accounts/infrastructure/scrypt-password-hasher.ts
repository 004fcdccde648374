import { randomBytes, scrypt, ScryptOptions, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PasswordHasher } from '../application/ports';

/**
 * Node's scrypt with N=2^15, r=8, p=1 (32 MiB; its time: docs/benchmark.md): costly enough to make offline guessing of
 * a leaked hash slow, cheap enough for a sign-in. Stored as `scrypt$N$r$p$salt$key` so the parameters can be
 * raised later without breaking existing passwords.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 64;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

@Injectable()
export class ScryptPasswordHasher extends PasswordHasher {
  /** What new hashes cost. A unit test lowers it for checks that do not depend on the cost; verify reads the stored one. */
  protected readonly params: { N: number; r: number; p: number } = PARAMS;

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const { N, r, p } = this.params;
    const key = await derive(password, salt, { N, r, p });
    return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parts = stored.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [N, r, p] = parts.slice(1, 4).map(Number);
    if (![N, r, p].every(Number.isInteger) || N > 2 ** 20 || r > 32 || p > 16) return false;
    const expected = Buffer.from(parts[5], 'base64url');
    const key = await derive(password, Buffer.from(parts[4], 'base64url'), { N, r, p });
    return expected.length === key.length && timingSafeEqual(expected, key);
  }
}
