import {
  decoyHash,
  hashPassword,
  InvalidPasswordError,
  passwordProblem,
  SCRYPT_PARAMS,
  verifyPassword,
} from './password-hash';

describe('password hashing (scrypt)', () => {
  it('stores the parameters, a random salt and the key, never the password', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).toMatch(
      new RegExp(
        `^scrypt\\$${SCRYPT_PARAMS.N}\\$${SCRYPT_PARAMS.r}\\$${SCRYPT_PARAMS.p}\\$[\\w-]{22}\\$[\\w-]{43}$`,
      ),
    );
    expect(first).not.toContain('horse');
    expect(first).not.toBe(second);
  });

  it('verifies the right password and refuses others', async () => {
    const stored = await hashPassword('correct horse battery');
    await expect(verifyPassword('correct horse battery', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', stored)).resolves.toBe(false);
    await expect(verifyPassword('', stored)).resolves.toBe(false);
  });

  it('verifies hashes made with other parameters (they are read from the hash)', async () => {
    // N=2^10, r=8, p=1 of "password1", made once with node:crypto.
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync('password1', salt, 32, { N: 1024, r: 8, p: 1 });
    const stored = `scrypt$1024$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    await expect(verifyPassword('password1', stored)).resolves.toBe(true);
    await expect(verifyPassword('password2', stored)).resolves.toBe(false);
  });

  it('treats malformed stored values as a mismatch', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$x$8$1$a$b',
      'bcrypt$1$2$3$4$5',
      'scrypt$1024$8$1$a$',
    ]) {
      await expect(verifyPassword('password1', stored)).resolves.toBe(false);
    }
  });

  it('normalises Unicode, so composed and decomposed forms match', async () => {
    const stored = await hashPassword('caf\u00e9-au-lait');
    await expect(verifyPassword('cafe\u0301-au-lait', stored)).resolves.toBe(true);
  });

  it('refuses passwords shorter than 8 or longer than 1024 characters', async () => {
    expect(passwordProblem('short')).toMatch(/at least 8/);
    expect(passwordProblem('x'.repeat(1025))).toMatch(/at most 1024/);
    expect(passwordProblem('eight ch')).toBeNull();
    await expect(hashPassword('short')).rejects.toBeInstanceOf(InvalidPasswordError);
  });

  it('has a decoy hash that no password matches', async () => {
    const decoy = await decoyHash();
    expect(decoy).toBe(await decoyHash());
    await expect(verifyPassword('password1', decoy)).resolves.toBe(false);
  });
});
