import { Injectable } from '@nestjs/common';
import { TokensService } from '../auth/tokens.service';
import { ClientsService } from './clients.service';
import { invalidClient, readClientCredentials } from './client-credentials';
import type { OAuthClient } from './entities/oauth-client.entity';
import { GrantsService } from './grants.service';
import { OAuthProtocolError } from './oauth-error';

export type TokenTypeHint = 'access_token' | 'refresh_token';

/** RFC 7662 §2.2. Only `active` when the token is not active. */
export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string;
  username?: string;
  token_type?: 'Bearer';
  exp?: number;
  iat?: number;
  sub?: string;
  iss?: string;
}

const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** RFC 7009 §2.1: the server refuses the request and tells the client why; the token stays valid. */
function issuedToAnotherClient(): OAuthProtocolError {
  return new OAuthProtocolError(
    400,
    'unauthorized_client',
    'the token was issued to another client',
  );
}

/**
 * Revocation (RFC 7009) and introspection (RFC 7662) for authenticated clients. A client only
 * sees and revokes tokens issued to it. Introspecting another client's token, or a token from
 * `tokens issue`, answers inactive; revoking another client's token is refused with
 * unauthorized_client (RFC 7009 §2.1), and revoking a `tokens issue` token or an unknown one is a
 * no-op, so that a client learns nothing more about tokens that are not its own.
 */
@Injectable()
export class TokenLifecycleService {
  constructor(
    private readonly clients: ClientsService,
    private readonly grants: GrantsService,
    private readonly accessTokens: TokensService,
  ) {}

  /** The client authenticated by the request; public clients only where `allowPublic`. */
  async authenticateClient(
    authorization: string | undefined,
    body: Record<string, unknown>,
    { allowPublic }: { allowPublic: boolean },
  ): Promise<OAuthClient> {
    const credentials = readClientCredentials(authorization, body);
    if (credentials.method === 'none' && !allowPublic) {
      throw invalidClient('this endpoint needs client authentication with a client secret');
    }
    const client = await this.clients.authenticate(credentials.clientId, credentials.secret);
    if (!client) throw invalidClient('client authentication failed');
    return client;
  }

  /**
   * Revoking a refresh token revokes its whole grant, access tokens included (RFC 7009 §2.1);
   * revoking an access token revokes that token alone. The hint only decides which kind is
   * looked up first.
   */
  async revoke(client: OAuthClient, token: string, hint: TokenTypeHint | undefined): Promise<void> {
    for (const kind of lookupOrder(hint)) {
      if (kind === 'access_token') {
        const info = await this.accessTokens.describe(token);
        if (info) {
          if (info.clientId === null) return;
          if (info.clientId !== client.clientId) throw issuedToAnotherClient();
          await this.accessTokens.revoke(token);
          return;
        }
      } else {
        const row = await this.grants.findRefreshToken(token);
        if (row) {
          if (row.grant.client.clientId !== client.clientId) throw issuedToAnotherClient();
          await this.grants.revoke(row.grantId);
          return;
        }
      }
    }
  }

  async introspect(
    client: OAuthClient,
    token: string,
    hint: TokenTypeHint | undefined,
    issuer: string,
  ): Promise<Introspection> {
    for (const kind of lookupOrder(hint)) {
      if (kind === 'access_token') {
        const info = await this.accessTokens.describe(token);
        if (info) {
          if (!info.active || info.clientId !== client.clientId) return { active: false };
          return {
            active: true,
            scope: info.scopes.join(' '),
            client_id: client.clientId,
            username: info.userName,
            token_type: 'Bearer',
            exp: epochSeconds(info.expiresAt),
            iat: epochSeconds(info.issuedAt),
            sub: String(info.userId),
            iss: issuer,
          };
        }
      } else {
        const row = await this.grants.findRefreshToken(token);
        if (row) {
          const active =
            row.rotatedAt === null &&
            row.revokedAt === null &&
            row.grant.revokedAt === null &&
            row.expiresAt.getTime() > Date.now() &&
            row.grant.client.clientId === client.clientId;
          if (!active) return { active: false };
          return {
            active: true,
            scope: row.scopes,
            client_id: client.clientId,
            username: row.grant.user.name,
            exp: epochSeconds(row.expiresAt),
            iat: epochSeconds(row.createdAt),
            sub: String(row.grant.userId),
            iss: issuer,
          };
        }
      }
    }
    return { active: false };
  }
}

/** The hint only decides which kind of token is looked up first (RFC 7009 §2.1, RFC 7662 §2.1). */
function lookupOrder(hint: TokenTypeHint | undefined): TokenTypeHint[] {
  return hint === 'refresh_token'
    ? ['refresh_token', 'access_token']
    : ['access_token', 'refresh_token'];
}
