import { Inject, Injectable } from '@nestjs/common';
import OAuth2Server, {
  AbstractGrantType,
  AuthorizationCodeModel,
  OAuthError,
  Request,
  Response,
} from '@node-oauth/oauth2-server';
import type { FastifyRequest } from 'fastify';
import type { Scope } from '../auth/scopes';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AuthorizationCodeGrant, RefreshTokenGrant } from './grant-types';
import type { AuthorizationRequest } from './authorization-request';
import { CLIENT_AUTH_REALM, readClientCredentials } from './client-credentials';
import { GrantsModel, OAuthModel, Subject } from './oauth.model';
import { OAuthProtocolError } from './oauth-error';

/** Codes are exchanged by the client's back end at once; a minute is plenty (RFC 6749 §4.1.2). */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;

export const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

export interface TokenEndpointResponse {
  status: number;
  headers: Record<string, string>;
  body: object;
}

/**
 * @node-oauth/oauth2-server, configured once: it runs the authorization_code grant (single-use,
 * short-lived codes, PKCE S256 only: the library refuses plain unless enabled) and the
 * refresh_token grant (rotation), against the TypeORM-backed OAuthModel.
 */
@Injectable()
export class OAuthServerService {
  private readonly server: OAuth2Server;

  constructor(@Inject(APP_CONFIG) config: AppConfig, model: OAuthModel) {
    this.server = new OAuth2Server({
      // Without getAccessToken (see GrantsModel): the library asks for it only in authenticate().
      model: model satisfies GrantsModel as unknown as AuthorizationCodeModel,
      accessTokenLifetime: config.oauth.accessTokenTtlSeconds,
      refreshTokenLifetime: config.oauth.refreshTokenTtlSeconds,
      authorizationCodeLifetime: AUTHORIZATION_CODE_TTL_SECONDS,
      allowEmptyState: true,
      alwaysIssueNewRefreshToken: true,
      // Public clients send client_id alone; OAuthModel.getClient() still demands the secret of a
      // confidential client, so this only lets public clients through.
      requireClientAuthentication: { authorization_code: false, refresh_token: false },
      // The library's grants, with two RFC details corrected (see grant-types.ts).
      extendedGrantTypes: {
        authorization_code: AuthorizationCodeGrant as unknown as typeof AbstractGrantType,
        refresh_token: RefreshTokenGrant as unknown as typeof AbstractGrantType,
      },
    });
  }

  /** Issues the authorization code of a request the user approved on the consent page. */
  async issueCode(
    request: AuthorizationRequest,
    grantedScopes: readonly Scope[],
    subject: Subject,
  ): Promise<string> {
    const code = await this.server.authorize(
      new Request({
        method: 'POST',
        headers: {},
        query: {},
        body: {
          response_type: 'code',
          client_id: request.client.clientId,
          redirect_uri: request.redirectUri,
          scope: grantedScopes.join(' '),
          ...(request.state === undefined ? {} : { state: request.state }),
          code_challenge: request.codeChallenge,
          code_challenge_method: request.codeChallengeMethod,
        },
      }),
      new Response(),
      { authenticateHandler: { handle: () => subject } },
    );
    return code.authorizationCode;
  }

  /** POST /oauth/token: the library's answer, success or error. */
  async token(request: FastifyRequest): Promise<TokenEndpointResponse> {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const repeated = Object.keys(body).find((name) => Array.isArray(body[name]));
    if (repeated) throw new OAuthProtocolError(400, 'invalid_request', `${repeated} is repeated`);
    const grantType = body.grant_type;
    if (
      typeof grantType === 'string' &&
      !(SUPPORTED_GRANT_TYPES as readonly string[]).includes(grantType)
    ) {
      throw new OAuthProtocolError(
        400,
        'unsupported_grant_type',
        `grant_type must be ${SUPPORTED_GRANT_TYPES.join(' or ')}`,
      );
    }

    const response = new Response();
    try {
      await this.server.token(
        new Request({ method: request.method, query: {}, ...withDecodedBasic(request, body) }),
        response,
      );
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.name === 'server_error') throw error;
      if (error.name === 'invalid_client') {
        // 401 and a challenge whichever way the client authenticated (RFC 6749 §5.2 allows it).
        throw new OAuthProtocolError(401, 'invalid_client', error.message, {
          'WWW-Authenticate': `Basic realm="${CLIENT_AUTH_REALM}"`,
        });
      }
      throw OAuthProtocolError.from(error);
    }
    return {
      status: response.status ?? 200,
      headers: response.headers ?? {},
      body: response.body as object,
    };
  }
}

/**
 * The library reads HTTP Basic credentials without form-decoding them, so a client that encodes
 * them as RFC 6749 §2.3.1 says (`-`, `_`, `.`, `~` become `%2D`…) fails to authenticate. They are
 * decoded here, one method per request (Basic and client_secret in the body is invalid_request),
 * and handed to the library as client_secret_post.
 */
function withDecodedBasic(
  request: FastifyRequest,
  body: Record<string, unknown>,
): { headers: Record<string, string>; body: Record<string, unknown> } {
  const { authorization, ...headers } = request.headers as Record<string, string>;
  if (!/^Basic\s/i.test(authorization ?? '')) {
    return { headers: request.headers as Record<string, string>, body };
  }
  const credentials = readClientCredentials(authorization, body);
  return {
    headers,
    body: { ...body, client_id: credentials.clientId, client_secret: credentials.secret },
  };
}
