import { userNameFrom } from './external-identities.service';

describe('userNameFrom (the local name of a new identity-provider user)', () => {
  it('takes the first usable candidate: preferred_username, else name, else sub', () => {
    expect(userNameFrom(['jane', 'Jane Doe', 'sub-1'])).toBe('jane');
    expect(userNameFrom([undefined, 'Jane Doe', 'sub-1'])).toBe('Jane Doe');
    expect(userNameFrom([undefined, 42, 'sub-1'])).toBe('sub-1');
    expect(userNameFrom(['   ', '', 'sub-1'])).toBe('sub-1');
  });

  it('drops control characters and outer spaces, and cuts to 64 characters', () => {
    expect(userNameFrom([' ja\u0000ne\n '])).toBe('jane');
    expect([...userNameFrom(['é'.repeat(100)])]).toHaveLength(64);
    expect(userNameFrom([`${'a'.repeat(63)} b`])).toBe('a'.repeat(63));
  });
});
