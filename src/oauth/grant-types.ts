import { InvalidGrantError, InvalidRequestError, Request } from '@node-oauth/oauth2-server';
import type {
  AuthorizationCode,
  Client,
  RefreshToken,
  Token,
  User,
} from '@node-oauth/oauth2-server';

interface LibraryCodeGrant {
  handle(request: Request, client: Client): Promise<Token>;
  validateRedirectUri(request: Request, code: AuthorizationCode): void;
}

interface LibraryRefreshGrant {
  model: {
    saveToken(token: Omit<Token, 'client' | 'user'>, client: Client, user: User): Promise<Token>;
  };
  handle(request: Request, client: Client): Promise<Token>;
  getRefreshToken(request: Request, client: Client): Promise<RefreshToken>;
  revokeToken(token: RefreshToken): Promise<RefreshToken>;
  getScope(request: Request, token: RefreshToken): string[] | undefined;
  generateAccessToken(client: Client, user: User, scope: string[] | undefined): Promise<string>;
  generateRefreshToken(client: Client, user: User, scope: string[] | undefined): Promise<string>;
}

// The library's own grant types, which it does not export by name. This server corrects three
// details of them and keeps their handling of the exchange (single use, expiry, PKCE, client
// binding, scopes) unchanged.
/* eslint-disable @typescript-eslint/no-require-imports */
const LibraryAuthorizationCodeGrant =
  require('@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type') as new (
    options: object,
  ) => LibraryCodeGrant;
const LibraryRefreshTokenGrant =
  require('@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type') as new (
    options: object,
  ) => LibraryRefreshGrant;
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The library's authorization_code grant, except that a redirect_uri that differs from the
 * authorization request's is `invalid_grant`, as RFC 6749 §5.2 names it (the library says
 * `invalid_request`). A missing one stays `invalid_request`.
 */
export class AuthorizationCodeGrant extends LibraryAuthorizationCodeGrant {
  override validateRedirectUri(request: Request, code: AuthorizationCode): void {
    const sent: unknown = (request.body as Record<string, unknown>).redirect_uri;
    if (typeof sent !== 'string' || sent === '') {
      throw new InvalidRequestError('Missing parameter: `redirect_uri`');
    }
    if (sent !== code.redirectUri) {
      throw new InvalidGrantError(
        'Invalid grant: redirect_uri does not match the one of the authorization request',
      );
    }
    super.validateRedirectUri(request, code);
  }
}

/**
 * The library's refresh_token grant, except that
 * - a requested scope is checked before the token is rotated rather than after: a refresh that
 *   asks for more than was granted fails with invalid_scope and leaves the client's refresh token
 *   usable, instead of spending it on nothing;
 * - a narrower scope narrows the new access token only: the new refresh token keeps the scope of
 *   the one presented (RFC 6749 §6), so a later refresh may ask for the rest again. The library
 *   gives both the narrower one.
 */
export class RefreshTokenGrant extends LibraryRefreshTokenGrant {
  override async handle(request: Request, client: Client): Promise<Token> {
    const token = await this.getRefreshToken(request, client);
    const scope = this.getScope(request, token);
    await this.revokeToken(token);
    return this.model.saveToken(
      {
        accessToken: await this.generateAccessToken(client, token.user, scope),
        refreshToken: await this.generateRefreshToken(client, token.user, token.scope),
        scope,
        refreshTokenScope: token.scope,
      },
      client,
      token.user,
    );
  }
}
