import { ScryptPasswordHasher } from './scrypt-password-hasher';

/**
 * The same hasher at a cost of 2^10: for the checks that do not depend on the cost, so that the production
 * parameters (one hash and one verify, ~100 ms each) are paid once.
 */
class CheapScryptPasswordHasher extends ScryptPasswordHasher {
  protected override readonly params = { N: 2 ** 10, r: 8, p: 1 };
}

describe('ScryptPasswordHasher', () => {
  const hasher = new ScryptPasswordHasher();
  const cheap = new CheapScryptPasswordHasher();

  it('hashes with N=2^15, r=8, p=1 and verifies the right password', async () => {
    const stored = await hasher.hash('correct horse battery');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    expect(stored).not.toContain('correct horse');
    await expect(hasher.verify('correct horse battery', stored)).resolves.toBe(true);
  });

  it('refuses a wrong password, with the cost read from the stored value', async () => {
    const stored = await cheap.hash('correct horse battery');
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$/);
    await expect(hasher.verify('correct horse battery', stored)).resolves.toBe(true);
    await expect(hasher.verify('correct horse batterY', stored)).resolves.toBe(false);
    await expect(hasher.verify('', stored)).resolves.toBe(false);
  });

  it('salts: the same password hashes differently twice', async () => {
    expect(await cheap.hash('same password')).not.toBe(await cheap.hash('same password'));
  });

  it('refuses malformed or absurd stored values instead of throwing', async () => {
    await expect(hasher.verify('x', 'plain-text')).resolves.toBe(false);
    await expect(hasher.verify('x', 'scrypt$1099511627776$8$1$c2FsdA$a2V5')).resolves.toBe(false);
  });
});
