import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * CSRF protection of the sign-in and consent form, without server-side sessions: a double-submit
 * token. The page sets it in a cookie (HttpOnly, SameSite=Lax, Secure over https, scoped to
 * /oauth/authorize) and in a hidden field; a post is accepted only when both are present and
 * equal. Another site can make a browser post the form but can neither read nor set the cookie, so
 * it cannot match it. Stateless, so any instance accepts the form another one rendered.
 */
export const CSRF_COOKIE = 'oauth_csrf';
export const CSRF_FIELD = 'csrf_token';
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;
const MAX_AGE_SECONDS = 3600;

export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The cookie's value when it is well-formed, so that a page reload keeps the token of other tabs. */
export function csrfFromCookies(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CSRF_COOKIE && TOKEN_FORM.test(value.join('='))) return value.join('=');
  }
  return undefined;
}

export function csrfCookie(token: string, secure: boolean): string {
  return [
    `${CSRF_COOKIE}=${token}`,
    'Path=/oauth/authorize',
    `Max-Age=${MAX_AGE_SECONDS}`,
    'HttpOnly',
    // Lax, not Strict: the flow starts with a cross-site redirect to the page, and Strict cookies
    // are left out of it. Lax ones are still left out of cross-site posts.
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function csrfMatches(cookieToken: string | undefined, formToken: unknown): boolean {
  if (cookieToken === undefined || typeof formToken !== 'string' || !TOKEN_FORM.test(formToken)) {
    return false;
  }
  return timingSafeEqual(Buffer.from(cookieToken), Buffer.from(formToken));
}
