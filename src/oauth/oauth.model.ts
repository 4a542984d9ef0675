import { Inject, Injectable } from '@nestjs/common';
import {
  AuthorizationCode as CodeData,
  AuthorizationCodeModel,
  Client,
  InvalidGrantError,
  InvalidRequestError,
  RefreshToken as RefreshTokenData,
  RefreshTokenModel,
  Token,
  User,
} from '@node-oauth/oauth2-server';
import { isScope } from '../auth/scopes';
import { generateOpaqueToken, TokensService } from '../auth/tokens.service';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PKCE_METHOD } from './authorization-request';
import { ClientsService } from './clients.service';
import { OAuthClient } from './entities/oauth-client.entity';
import { OAuthGrant } from './entities/oauth-grant.entity';
import { isRegisteredRedirectUri } from './redirect-uri';
import { GrantsService } from './grants.service';

/** The client as the library sees it. `id` is the public client_id. */
export interface ModelClient extends Client {
  id: string;
  grants: string[];
  redirectUris: string[];
  entity: OAuthClient;
}

/**
 * The user as the library sees it. `grantId` ties what the library hands back to `saveToken()` to
 * the grant (token family) it belongs to; it is absent on the consent page, before the grant exists.
 */
export interface Subject extends User {
  id: number;
  name: string;
  grantId?: number;
}

export function toModelClient(client: OAuthClient): ModelClient {
  return {
    id: client.clientId,
    grants: ['authorization_code', 'refresh_token'],
    redirectUris: client.redirectUris,
    entity: client,
  };
}

function subjectOf(grant: Required<OAuthGrant>): Subject {
  return { id: grant.user.id, name: grant.user.name, grantId: grant.id };
}

function scopeList(scopes: string): string[] {
  return scopes.split(' ').filter((scope) => scope.length > 0);
}

/**
 * Expiry to the whole second, as every timestamp is stored, rounded up so that a token never lives
 * less than its published lifetime (and `expires_in` reads 3600, not 3599).
 */
export function expiryAfter(seconds: number, now = Date.now()): Date {
  return new Date((Math.floor(now / 1000) + 1 + seconds) * 1000);
}

/**
 * What the two grants need of the library's model. Its types also ask for `getAccessToken`, which
 * only the library's `authenticate()` calls: the API authenticates bearer tokens itself (see
 * AccessTokenVerifier), so this server does not implement it.
 */
export type GrantsModel = Omit<AuthorizationCodeModel, 'getAccessToken'> &
  Omit<RefreshTokenModel, 'getAccessToken'>;

/**
 * The TypeORM-backed model of @node-oauth/oauth2-server. The library runs the grants (code
 * exchange with PKCE, refresh); this class stores what it issues and holds this server's policy:
 * client authentication, the scope set, single-use codes and refresh-token rotation with reuse
 * detection over the whole grant.
 */
@Injectable()
export class OAuthModel implements GrantsModel {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clients: ClientsService,
    private readonly grants: GrantsService,
    private readonly tokens: TokensService,
  ) {}

  /**
   * The authorization endpoint looks the client up (secret null: no client authentication there,
   * RFC 6749 §4.1.1); the token endpoint passes what the client sent, a secret or nothing, and the
   * client must authenticate with it (confidential) or send none (public, PKCE alone).
   */
  async getClient(
    clientId: string,
    clientSecret: string | null | undefined,
  ): Promise<ModelClient | null> {
    const client =
      clientSecret === null
        ? await this.clients.findByClientId(clientId)
        : await this.clients.authenticate(clientId, clientSecret);
    return client ? toModelClient(client) : null;
  }

  /** Granted ⊆ requested ⊆ the scopes this API knows; nothing requested is invalid_scope. */
  async validateScope(_user: User, _client: Client, scope?: string[]): Promise<string[] | false> {
    if (!scope || scope.length === 0 || !scope.every(isScope)) return false;
    return [...new Set(scope)];
  }

  async validateRedirectUri(redirectUri: string, client: Client): Promise<boolean> {
    return isRegisteredRedirectUri((client as ModelClient).redirectUris, redirectUri);
  }

  async generateAuthorizationCode(): Promise<string> {
    return generateOpaqueToken();
  }

  async generateAccessToken(): Promise<string> {
    return generateOpaqueToken();
  }

  async generateRefreshToken(): Promise<string> {
    return generateOpaqueToken();
  }

  async saveAuthorizationCode(
    code: Pick<
      CodeData,
      | 'authorizationCode'
      | 'expiresAt'
      | 'redirectUri'
      | 'scope'
      | 'codeChallenge'
      | 'codeChallengeMethod'
    >,
    client: Client,
    user: User,
  ): Promise<CodeData> {
    // The authorization endpoint checks this first; here it guards the storage itself.
    if (!code.codeChallenge || code.codeChallengeMethod !== PKCE_METHOD) {
      throw new InvalidRequestError(
        'Invalid request: PKCE with code_challenge_method S256 is required',
      );
    }
    const subject = user as Subject;
    const modelClient = client as ModelClient;
    const grantId = await this.grants.open(modelClient.entity.id, subject.id);
    await this.grants.saveCode({
      code: code.authorizationCode,
      grantId,
      redirectUri: code.redirectUri,
      scopes: code.scope ?? [],
      codeChallenge: code.codeChallenge,
      codeChallengeMethod: code.codeChallengeMethod,
      expiresAt: code.expiresAt,
    });
    return { ...code, client, user: { ...subject, grantId } };
  }

  /**
   * A code presented a second time is refused, and everything issued from it is revoked
   * (RFC 6749 §4.1.2: it may have been stolen).
   */
  async getAuthorizationCode(authorizationCode: string): Promise<CodeData | null> {
    const row = await this.unlessReused(
      await this.grants.findCode(authorizationCode),
      (code) => code.usedAt !== null,
    );
    if (!row || row.grant.revokedAt !== null) return null;
    return {
      authorizationCode,
      expiresAt: row.expiresAt,
      redirectUri: row.redirectUri,
      scope: scopeList(row.scopes),
      codeChallenge: row.codeChallenge,
      codeChallengeMethod: row.codeChallengeMethod,
      client: toModelClient(row.grant.client),
      user: subjectOf(row.grant),
      rowId: row.id,
    };
  }

  /**
   * The code or refresh token `row` unless it was already exchanged (`exchanged`): presented
   * again, it revokes its whole grant and is refused.
   */
  private async unlessReused<T extends { grantId: number }>(
    row: T | null,
    exchanged: (row: T) => boolean,
  ): Promise<T | null> {
    if (row && exchanged(row)) {
      await this.grants.revoke(row.grantId);
      return null;
    }
    return row;
  }

  /** The one exchange a code allows; losing a race for it counts as reuse. */
  async revokeAuthorizationCode(code: CodeData): Promise<boolean> {
    if (await this.grants.consumeCode(code.rowId as number)) return true;
    await this.grants.revoke((code.user as Subject).grantId as number);
    return false;
  }

  /**
   * `refreshTokenScope`, from RefreshTokenGrant, is the refresh token's scope when it differs from
   * the access token's. Repeated scopes count once, in the answer too.
   */
  async saveToken(token: Token, client: Client, user: User): Promise<Token> {
    const subject = user as Subject;
    if (subject.grantId === undefined) throw new Error('saveToken() without a grant');
    const scopes = [...new Set(token.scope ?? [])];
    // Lifetimes from the configuration, to the whole second (see expiryAfter).
    const accessTokenExpiresAt = expiryAfter(this.config.oauth.accessTokenTtlSeconds);
    const refreshTokenExpiresAt = token.refreshToken
      ? expiryAfter(this.config.oauth.refreshTokenTtlSeconds)
      : undefined;
    const saved = await this.grants.saveTokens({
      grantId: subject.grantId,
      userId: subject.id,
      clientId: (client as ModelClient).id,
      scopes,
      refreshTokenScopes: token.refreshTokenScope as string[] | undefined,
      accessToken: token.accessToken,
      accessTokenExpiresAt,
      refreshToken: token.refreshToken,
      refreshTokenExpiresAt,
    });
    if (!saved) throw new InvalidGrantError('Invalid grant: the authorization was revoked');
    return {
      accessToken: token.accessToken,
      accessTokenExpiresAt,
      refreshToken: token.refreshToken,
      refreshTokenExpiresAt,
      scope: scopes,
      client,
      user,
    };
  }

  /**
   * Rotation with reuse detection (OAuth 2.0 Security BCP, RFC 9700 §4.14.2): a refresh token
   * that was already exchanged is refused, and the whole grant is revoked, since either the client
   * or an attacker holds a stolen copy and the server cannot tell which.
   */
  async getRefreshToken(refreshToken: string): Promise<RefreshTokenData | null> {
    const row = await this.unlessReused(
      await this.grants.findRefreshToken(refreshToken),
      (token) => token.rotatedAt !== null,
    );
    if (!row || row.revokedAt !== null || row.grant.revokedAt !== null) return null;
    return {
      refreshToken,
      refreshTokenExpiresAt: row.expiresAt,
      scope: scopeList(row.scopes),
      client: toModelClient(row.grant.client),
      user: subjectOf(row.grant),
      rowId: row.id,
    };
  }

  /** Called by the refresh grant before it issues the successor; losing a race is reuse too. */
  async revokeToken(token: RefreshTokenData | Token): Promise<boolean> {
    if (await this.grants.rotateRefreshToken(token.rowId as number)) return true;
    await this.grants.revoke((token.user as Subject).grantId as number);
    return false;
  }
}
