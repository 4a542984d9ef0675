import { ALL_SCOPES, isScope, Scope } from '../auth/scopes';
import type { OAuthClient } from './entities/oauth-client.entity';
import type { OAuthErrorCode } from './oauth-error';
import { isRegisteredRedirectUri } from './redirect-uri';

/** The only PKCE method accepted: plain is refused (RFC 9700 §2.1.1). */
export const PKCE_METHOD = 'S256';

/** A validated authorization request (RFC 6749 §4.1.1 with PKCE, RFC 7636 §4.3). */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  scopes: Scope[];
  codeChallenge: string;
  codeChallengeMethod: typeof PKCE_METHOD;
}

export type AuthorizationRequestOutcome =
  | { kind: 'valid'; request: AuthorizationRequest }
  /** The client or the redirect URI cannot be trusted: tell the user, never redirect (§4.1.2.1). */
  | { kind: 'page-error'; description: string }
  /** Anything else goes back to the client's redirect URI. */
  | {
      kind: 'redirect-error';
      redirectUri: string;
      state: string | undefined;
      error: OAuthErrorCode;
      description: string;
    };

export const AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

type Params = Record<string, unknown>;

const REPEATED = Symbol('repeated');

/** "ratings.anime, ratings.manga and/or user.profile" */
const ASK_FOR = `${ALL_SCOPES.slice(0, -1).join(', ')} and/or ${ALL_SCOPES[ALL_SCOPES.length - 1]}`;

/** A parameter sent at most once (RFC 6749 §3.1); REPEATED when it came several times. */
function param(params: Params, name: string): string | undefined | typeof REPEATED {
  const value = params[name];
  if (Array.isArray(value)) {
    if (value.length !== 1) return REPEATED;
    return typeof value[0] === 'string' && value[0] !== '' ? value[0] : undefined;
  }
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** RFC 6749 Appendix A: state is VSCHAR (printable ASCII). */
const STATE_FORM = /^[\x20-\x7e]{1,1024}$/;
/** An S256 challenge is the base64url SHA-256 of the verifier: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks an authorization request in the order of RFC 6749 §4.1.2.1: first the client and the
 * registered redirect URI (failures are shown to the user), then the rest (sent back to the client).
 */
export async function parseAuthorizationRequest(
  params: Params,
  findClient: (clientId: string) => Promise<OAuthClient | null>,
): Promise<AuthorizationRequestOutcome> {
  const clientId = param(params, 'client_id');
  if (clientId === REPEATED) return pageError('client_id is repeated');
  if (clientId === undefined) return pageError('client_id is missing');
  const client = await findClient(clientId);
  if (!client) return pageError('client_id does not name a registered application');

  const redirectUri = param(params, 'redirect_uri');
  if (redirectUri === REPEATED) return pageError('redirect_uri is repeated');
  if (redirectUri === undefined) return pageError('redirect_uri is missing');
  if (!isRegisteredRedirectUri(client.redirectUris, redirectUri)) {
    return pageError(
      'redirect_uri is not one the application registered (it must match exactly; only the port of http://127.0.0.1 and http://[::1] may differ)',
    );
  }

  const rawState = param(params, 'state');
  const state = typeof rawState === 'string' && STATE_FORM.test(rawState) ? rawState : undefined;
  const fail = (error: OAuthErrorCode, description: string): AuthorizationRequestOutcome => ({
    kind: 'redirect-error',
    redirectUri,
    state,
    error,
    description,
  });

  const repeated = AUTHORIZATION_PARAMS.find((name) => param(params, name) === REPEATED);
  if (repeated) return fail('invalid_request', `${repeated} is repeated`);
  if (rawState !== undefined && state === undefined) {
    return fail('invalid_request', 'state must be 1 to 1024 printable ASCII characters');
  }

  const responseType = param(params, 'response_type');
  if (responseType === undefined) return fail('invalid_request', 'response_type is missing');
  if (responseType !== 'code') {
    return fail('unsupported_response_type', 'response_type must be code');
  }

  const codeChallenge = param(params, 'code_challenge') as string | undefined;
  const method = param(params, 'code_challenge_method') as string | undefined;
  if (codeChallenge === undefined) {
    return fail(
      'invalid_request',
      'PKCE is required: send code_challenge and code_challenge_method=S256',
    );
  }
  if (method !== PKCE_METHOD) {
    return fail(
      'invalid_request',
      method === undefined || method === 'plain'
        ? 'code_challenge_method must be S256 (plain is not supported)'
        : 'code_challenge_method must be S256',
    );
  }
  if (!S256_CHALLENGE.test(codeChallenge)) {
    return fail(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the verifier (43 characters)',
    );
  }

  const scope = param(params, 'scope') as string | undefined;
  if (scope === undefined || scope.trim() === '') {
    return fail('invalid_scope', `scope is missing: ask for ${ASK_FOR}`);
  }
  const requested = scope.split(' ').filter((name) => name.length > 0);
  if (!requested.every(isScope)) {
    return fail('invalid_scope', `scope outside the allowed set: ask for ${ASK_FOR}`);
  }

  return {
    kind: 'valid',
    request: {
      client,
      redirectUri,
      state,
      scopes: [...new Set(requested)] as Scope[],
      codeChallenge,
      codeChallengeMethod: PKCE_METHOD,
    },
  };
}

function pageError(description: string): AuthorizationRequestOutcome {
  return { kind: 'page-error', description };
}

/** The redirect back to the client (RFC 6749 §4.1.2), keeping the redirect URI's own query. */
export function redirectBack(
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.toString();
}
