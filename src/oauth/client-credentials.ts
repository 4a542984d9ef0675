import { OAuthProtocolError } from './oauth-error';

export const CLIENT_AUTH_REALM = 'oauth';

/** How a client authenticated (RFC 6749 §2.3.1; `none`: a public client sends its id alone). */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface ClientCredentials {
  clientId: string;
  secret: string | undefined;
  method: ClientAuthMethod;
}

/** 401 invalid_client, with the challenge RFC 6749 §5.2 asks for. */
export function invalidClient(description: string): OAuthProtocolError {
  return new OAuthProtocolError(401, 'invalid_client', description, {
    'WWW-Authenticate': `Basic realm="${CLIENT_AUTH_REALM}"`,
  });
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function single(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (Array.isArray(value)) {
    throw new OAuthProtocolError(400, 'invalid_request', `${name} is repeated`);
  }
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The client credentials of a request to the revocation or introspection endpoint: HTTP Basic
 * (client_id and secret form-encoded, then base64, RFC 6749 §2.3.1), or client_id and
 * client_secret in the body, or client_id alone (public clients). One method per request.
 */
export function readClientCredentials(
  authorization: string | undefined,
  body: Record<string, unknown>,
): ClientCredentials {
  const bodyId = single(body, 'client_id');
  const bodySecret = single(body, 'client_secret');
  const basic = /^Basic\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (basic) {
    if (bodySecret !== undefined) {
      throw new OAuthProtocolError(
        400,
        'invalid_request',
        'use one client authentication method: HTTP Basic or client_secret in the body, not both',
      );
    }
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) throw invalidClient('malformed HTTP Basic credentials');
    let clientId: string;
    let secret: string;
    try {
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw invalidClient('malformed HTTP Basic credentials');
    }
    if (bodyId !== undefined && bodyId !== clientId) {
      throw new OAuthProtocolError(
        400,
        'invalid_request',
        'client_id differs from the HTTP Basic user',
      );
    }
    return { clientId, secret, method: 'client_secret_basic' };
  }
  if (bodyId === undefined) throw invalidClient('client authentication is missing');
  return bodySecret === undefined
    ? { clientId: bodyId, secret: undefined, method: 'none' }
    : { clientId: bodyId, secret: bodySecret, method: 'client_secret_post' };
}
