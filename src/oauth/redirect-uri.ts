export const MAX_REDIRECT_URI_LENGTH = 2048;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI cannot be registered, or null. The rules of RFC 6749 §3.1.2 and of the
 * OAuth 2.0 Security BCP (RFC 9700) / native apps (RFC 8252): an absolute URI without a fragment or
 * credentials; https, or http only on a loopback address (an app on the user's machine), or a
 * private-use scheme in reverse-domain form (`com.example.app:/callback`) for native apps.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) {
    return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  }
  if (/\s/.test(uri)) return 'contains whitespace';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (uri.includes('#')) return 'has a fragment';
  if (url.username || url.password) return 'contains credentials';
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return url.hostname ? null : 'has no host';
  if (scheme === 'http') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : 'uses http on a host other than localhost, 127.0.0.1 or [::1]; use https';
  }
  if (scheme.includes('.')) return null;
  return `uses the scheme "${scheme}": use https, http on a loopback address, or a reverse-domain private-use scheme such as com.example.app`;
}

/** A loopback IP literal redirect URI, split around its port (RFC 8252 §7.3). */
const LOOPBACK_IP_URI = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?][^#]*)?$/;

function withoutPort(uri: string): string | null {
  const match = LOOPBACK_IP_URI.exec(uri);
  if (!match) return null;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return null;
  return `http://${match[1]}${match[3] ?? ''}`;
}

/**
 * Whether a redirect URI of an authorization request is one the client registered: exactly, as
 * RFC 9700 §2.1 asks, except that an `http://127.0.0.1` or `http://[::1]` URI matches with any
 * port (RFC 8252 §7.3: native apps listen on an ephemeral port). `localhost` stays exact.
 */
export function isRegisteredRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const requestedLoopback = withoutPort(requested);
  return (
    requestedLoopback !== null && registered.some((uri) => withoutPort(uri) === requestedLoopback)
  );
}
