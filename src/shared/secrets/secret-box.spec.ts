import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSecretsKey, SecretBox, SECRETS_KEY_FILE } from './secret-box';
import { parseSecretsKey } from '../../config/secrets-key';

describe('SecretBox (AES-256-GCM)', () => {
  const box = new SecretBox(Buffer.alloc(32, 1));

  it('opens what it sealed; each seal differs (fresh IV); the digest is stable', () => {
    const a = box.seal('hunter2');
    const b = box.seal('hunter2');
    expect(a).not.toBe(b);
    expect(a).not.toContain('hunter2');
    expect(box.open(a)).toBe('hunter2');
    expect(box.digest('hunter2')).toBe(box.digest('hunter2'));
    expect(box.digest('hunter2')).not.toBe(box.digest('hunter3'));
  });

  it('refuses a tampered value or another key', () => {
    const sealed = box.seal('secret');
    // The last byte's six high bits, in the second-to-last character, changed to other ones (the check looked at
    // the last character instead, and left the value untouched when that one already was its replacement: 1 in 64).
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.slice(-1);
    expect(flipped).not.toBe(sealed);
    expect(() => box.open(flipped)).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow();
    expect(() => box.open('plain')).toThrow('not a sealed secret');
  });
});

describe('secrets key', () => {
  it('SECRETS_KEY as 64 hex characters or base64 of 32 bytes; anything else is refused', () => {
    expect(parseSecretsKey('ab'.repeat(32))).toEqual(Buffer.alloc(32, 0xab));
    expect(parseSecretsKey(Buffer.alloc(32, 3).toString('base64'))).toEqual(Buffer.alloc(32, 3));
    expect(parseSecretsKey('short')).toBeNull();
  });

  it('without SECRETS_KEY: generated once into the data directory, 0600, the same on every start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    const first = loadSecretsKey(null, dir);
    expect(first).toHaveLength(32);
    expect(statSync(join(dir, SECRETS_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadSecretsKey(null, dir)).toEqual(first);
    expect(readFileSync(join(dir, SECRETS_KEY_FILE), 'utf8')).toBe(first.toString('base64'));
    expect(loadSecretsKey(Buffer.alloc(32, 9), dir)).toEqual(Buffer.alloc(32, 9));
  });
});
