import { randomBase64Url } from './random-string';

describe('randomBase64Url', () => {
  it('draws base64url strings of the asked length that never start with "-"', () => {
    // A leading "-" comes once in 64 draws: 5,000 draws would show it.
    const drawn = Array.from({ length: 5000 }, () => randomBase64Url(32));
    expect(drawn.every((value) => /^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/.test(value))).toBe(true);
    expect(new Set(drawn).size).toBe(drawn.length);
    expect(randomBase64Url(16)).toHaveLength(22);
  });
});
