import { ScryptPasswordHasher } from './scrypt-password-hasher';

describe('ScryptPasswordHasher', () => {
  const hasher = new ScryptPasswordHasher();

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hasher.hash('correct horse battery');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    expect(stored).not.toContain('correct horse');
    await expect(hasher.verify('correct horse battery', stored)).resolves.toBe(true);
    await expect(hasher.verify('correct horse batterY', stored)).resolves.toBe(false);
    await expect(hasher.verify('', stored)).resolves.toBe(false);
  });

  it('salts: the same password hashes differently twice', async () => {
    expect(await hasher.hash('same password')).not.toBe(await hasher.hash('same password'));
  });

  it('refuses malformed or absurd stored values instead of throwing', async () => {
    await expect(hasher.verify('x', 'plain-text')).resolves.toBe(false);
    await expect(hasher.verify('x', 'scrypt$1099511627776$8$1$c2FsdA$a2V5')).resolves.toBe(false);
  });
});
