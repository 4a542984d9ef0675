import { Injectable } from '@nestjs/common';
import { ExternalIdentitiesService } from '../auth/external-identities.service';
import { TokensService } from '../auth/tokens.service';
import { toIsoSeconds } from '../common/timestamps';
import { GrantsService } from '../oauth/grants.service';
import { ScrobblersService } from '../scrobbling/scrobblers.service';
import { NamedUsers } from './named-user';

/** A token as `tokens list` prints it: what it is and where it stands, never the token itself. */
export interface ListedToken {
  type: 'access_token' | 'refresh_token';
  id: number;
  /** The OAuth client it was issued to; null for `tokens issue`. */
  client_id: string | null;
  scopes: string;
  issued_at: string;
  expires_at: string;
  /** `used`: a refresh token already exchanged for its successor. */
  status: 'active' | 'expired' | 'revoked' | 'used';
}

export interface RevokedTokens {
  accessTokens: number;
  /** OAuth grants revoked, with their refresh tokens and pending authorization codes. */
  authorizations: number;
  /** Whether the user has identity-provider pairs, whose JWTs issued until now are refused. */
  identityProvider: boolean;
  /** Scrobblers deleted: write credentials too (contract §21). */
  scrobblers: number;
}

/** `tokens list --user` and `tokens revoke --user`: every kind of token a user holds. */
@Injectable()
export class AccountTokens {
  constructor(
    private readonly named: NamedUsers,
    private readonly accessTokens: TokensService,
    private readonly grants: GrantsService,
    private readonly identities: ExternalIdentitiesService,
    private readonly scrobblers: ScrobblersService,
  ) {}

  async list(name: string, now = Date.now()): Promise<ListedToken[]> {
    const userId = await this.userId(name);
    const status = (expiresAt: Date, revokedAt: Date | null, rotatedAt: Date | null = null) =>
      revokedAt !== null
        ? 'revoked'
        : rotatedAt !== null
          ? 'used'
          : expiresAt.getTime() <= now
            ? 'expired'
            : 'active';
    const access: ListedToken[] = (await this.accessTokens.listOfUser(userId)).map((token) => ({
      type: 'access_token',
      id: token.id,
      client_id: token.clientId,
      scopes: token.scopes,
      issued_at: toIsoSeconds(token.issuedAt),
      expires_at: toIsoSeconds(token.expiresAt),
      status: status(token.expiresAt, token.revokedAt),
    }));
    const refresh: ListedToken[] = (await this.grants.refreshTokensOfUser(userId)).map((token) => ({
      type: 'refresh_token',
      id: token.id,
      client_id: token.clientId,
      scopes: token.scopes,
      issued_at: toIsoSeconds(token.issuedAt),
      expires_at: toIsoSeconds(token.expiresAt),
      status: status(token.expiresAt, token.revokedAt, token.rotatedAt),
    }));
    return [...access, ...refresh];
  }

  /**
   * Revokes every access token, refresh token and pending authorization code of the user, and
   * refuses the identity provider's JWTs of the user issued until now. All of them are checked
   * against the database on each request: refused from the next request on, on every instance.
   */
  async revokeAll(name: string): Promise<RevokedTokens> {
    const userId = await this.userId(name);
    const accessTokens = await this.accessTokens.revokeUser(userId);
    // Revoking a grant revokes its access tokens too, those a refresh issues meanwhile included.
    const authorizations = await this.grants.revokeUser(userId);
    const pairs = await this.identities.revokeTokensIssuedBefore(userId);
    const scrobblers = await this.scrobblers.deleteAllOfUser(userId);
    return { accessTokens, authorizations, identityProvider: pairs > 0, scrobblers };
  }

  private async userId(name: string): Promise<number> {
    return (await this.named.find(name)).id;
  }
}
