import { csrfCookie, csrfFromCookies, csrfMatches, newCsrfToken } from './csrf';

describe('CSRF double-submit token', () => {
  const token = newCsrfToken();

  it('is 256 random bits, base64url', () => {
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(newCsrfToken()).not.toBe(token);
  });

  it('is set in an HttpOnly, SameSite=Lax cookie scoped to the page, Secure over https', () => {
    expect(csrfCookie(token, false)).toBe(
      `oauth_csrf=${token}; Path=/oauth/authorize; Max-Age=3600; HttpOnly; SameSite=Lax`,
    );
    expect(csrfCookie(token, true)).toMatch(/; Secure$/);
  });

  it('is read back from the Cookie header, ignoring malformed values', () => {
    expect(csrfFromCookies(`a=1; oauth_csrf=${token}; b=2`)).toBe(token);
    expect(csrfFromCookies('oauth_csrf=short')).toBeUndefined();
    expect(csrfFromCookies(undefined)).toBeUndefined();
  });

  it('matches only an identical form field', () => {
    expect(csrfMatches(token, token)).toBe(true);
    expect(csrfMatches(token, newCsrfToken())).toBe(false);
    expect(csrfMatches(undefined, token)).toBe(false);
    expect(csrfMatches(token, undefined)).toBe(false);
    expect(csrfMatches(token, [token])).toBe(false);
  });
});
