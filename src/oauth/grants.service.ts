import { ScrobblersService } from '../scrobbling/scrobblers.service';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, FindOptionsRelations, FindOptionsWhere, IsNull, Repository } from 'typeorm';
import { hashToken, TokensService } from '../auth/tokens.service';
import { nowToTheSecond } from '../common/timestamps';
import { AuthorizationCode } from './entities/authorization-code.entity';
import { OAuthGrant } from './entities/oauth-grant.entity';
import { RefreshToken } from './entities/refresh-token.entity';

export interface NewAuthorizationCode {
  code: string;
  grantId: number;
  redirectUri: string;
  scopes: readonly string[];
  codeChallenge: string;
  codeChallengeMethod: string;
  expiresAt: Date;
}

/** A refresh token as `tokens list` shows it: never the token, which is not stored. */
export interface StoredRefreshToken {
  id: number;
  clientId: string;
  scopes: string;
  issuedAt: Date;
  expiresAt: Date;
  /** Exchanged for its successor. */
  rotatedAt: Date | null;
  /** The token's or its grant's revocation. */
  revokedAt: Date | null;
}

/** A client the user authorized on the consent page (one or more grants). */
export interface AuthorizedClient {
  clientId: string;
  name: string;
  firstAuthorizedAt: Date;
  lastAuthorizedAt: Date;
  /** At least one of its grants is not revoked. */
  active: boolean;
}

/** With its grant, the grant's client and user loaded. */
type WithGrant<T> = T & { grant: Required<OAuthGrant> };
export type LoadedCode = WithGrant<AuthorizationCode>;
export type LoadedRefreshToken = WithGrant<RefreshToken>;

/** The code or refresh token `where` finds, with its grant's client and user. */
function withGrant<T extends AuthorizationCode | RefreshToken>(
  repository: Repository<T>,
  where: FindOptionsWhere<T>,
): Promise<WithGrant<T> | null> {
  return repository.findOne({
    where,
    relations: { grant: { client: true, user: true } } as FindOptionsRelations<T>,
  }) as Promise<WithGrant<T> | null>;
}

/** Deletes the grants whose `column` is `id`, with their codes and refresh tokens. */
async function deleteGrants(
  manager: EntityManager,
  column: 'user_id' | 'oauth_client_id',
  id: number,
): Promise<void> {
  for (const table of ['oauth_authorization_codes', 'oauth_refresh_tokens']) {
    await manager.query(
      `DELETE FROM ${table} WHERE grant_id IN (SELECT id FROM oauth_grants WHERE ${column} = ?)`,
      [id],
    );
  }
  await manager.query(`DELETE FROM oauth_grants WHERE ${column} = ?`, [id]);
}

/** The column value of a scope list, each scope once. */
const scopeColumn = (scopes: readonly string[]) => [...new Set(scopes)].join(' ');

/**
 * Storage of the authorization server: grants and the codes and refresh tokens that belong to them
 * (access tokens stay with TokensService). Codes and tokens are stored as SHA-256 hashes. Every
 * "use once" step is a conditional UPDATE whose row count says who won, so that two concurrent
 * requests, on one instance or several, can never both use the same code or refresh token.
 */
@Injectable()
export class GrantsService {
  constructor(
    @InjectRepository(OAuthGrant) private readonly grants: Repository<OAuthGrant>,
    @InjectRepository(AuthorizationCode) private readonly codes: Repository<AuthorizationCode>,
    @InjectRepository(RefreshToken) private readonly refreshTokens: Repository<RefreshToken>,
    private readonly accessTokens: TokensService,
    private readonly scrobblers: ScrobblersService,
  ) {}

  async open(oauthClientId: number, userId: number): Promise<number> {
    const result = await this.grants.insert({
      oauthClientId,
      userId,
      createdAt: nowToTheSecond(),
      revokedAt: null,
    });
    return (result.identifiers[0] as { id: number }).id;
  }

  /**
   * Revokes a grant with everything that descends from it. The grant is marked first, and
   * `saveTokens` checks the mark after inserting: whichever runs first, no token of a revoked grant
   * stays live.
   */
  async revoke(grantId: number): Promise<void> {
    const now = nowToTheSecond();
    await this.grants.update({ id: grantId, revokedAt: IsNull() }, { revokedAt: now });
    await this.refreshTokens.update({ grantId, revokedAt: IsNull() }, { revokedAt: now });
    await this.accessTokens.revokeGrant(grantId);
    // The scrobblers the client's tokens created for the user are write credentials too.
    const grant = await this.grants.findOne({
      where: { id: grantId },
      relations: { client: true },
    });
    if (grant?.client) {
      await this.scrobblers.deleteOfClient(
        this.grants.manager,
        grant.client.clientId,
        grant.userId,
      );
    }
  }

  /**
   * Revokes every live grant of the user, with its refresh tokens, access tokens and pending
   * codes (a code of a revoked grant is refused at the token endpoint); returns how many grants.
   */
  async revokeUser(userId: number): Promise<number> {
    const live = await this.grants.find({
      select: { id: true },
      where: { userId, revokedAt: IsNull() },
    });
    for (const { id } of live) await this.revoke(id);
    return live.length;
  }

  /** The user's refresh tokens (expired and revoked ones until purged) with their client, oldest first. */
  async refreshTokensOfUser(userId: number): Promise<StoredRefreshToken[]> {
    const rows = await this.refreshTokens.find({
      where: { grant: { userId } },
      relations: { grant: { client: true } },
      order: { id: 'ASC' },
    });
    return rows.map((row) => ({
      id: row.id,
      clientId: row.grant!.client!.clientId,
      scopes: row.scopes,
      issuedAt: row.createdAt,
      expiresAt: row.expiresAt,
      rotatedAt: row.rotatedAt,
      revokedAt: row.revokedAt ?? row.grant!.revokedAt,
    }));
  }

  /** The clients the user authorized, one per client, in order of the first authorization. */
  async authorizedClients(userId: number): Promise<AuthorizedClient[]> {
    const grants = await this.grants.find({
      where: { userId },
      relations: { client: true },
      order: { id: 'ASC' },
    });
    const byClient = new Map<number, AuthorizedClient>();
    for (const grant of grants) {
      const known = byClient.get(grant.oauthClientId);
      const live = grant.revokedAt === null;
      if (known) {
        known.lastAuthorizedAt = grant.createdAt;
        known.active ||= live;
      } else {
        byClient.set(grant.oauthClientId, {
          clientId: grant.client!.clientId,
          name: grant.client!.name,
          firstAuthorizedAt: grant.createdAt,
          lastAuthorizedAt: grant.createdAt,
          active: live,
        });
      }
    }
    return [...byClient.values()];
  }

  /**
   * Deletes the user's grants with their codes and refresh tokens, in the caller's transaction
   * (`manager`). Their access tokens are TokensService's to delete.
   */
  deleteOfUser(manager: EntityManager, userId: number): Promise<void> {
    return deleteGrants(manager, 'user_id', userId);
  }

  /** deleteOfUser for the grants of a client (its `id`, not its `client_id`). */
  deleteOfClient(manager: EntityManager, oauthClientId: number): Promise<void> {
    return deleteGrants(manager, 'oauth_client_id', oauthClientId);
  }

  async isRevoked(grantId: number): Promise<boolean> {
    const grant = await this.grants.findOneBy({ id: grantId });
    return !grant || grant.revokedAt !== null;
  }

  async saveCode(code: NewAuthorizationCode): Promise<void> {
    await this.codes.insert({
      codeHash: hashToken(code.code),
      grantId: code.grantId,
      redirectUri: code.redirectUri,
      scopes: scopeColumn(code.scopes),
      codeChallenge: code.codeChallenge,
      codeChallengeMethod: code.codeChallengeMethod,
      createdAt: nowToTheSecond(),
      expiresAt: code.expiresAt,
      usedAt: null,
    });
  }

  findCode(code: string): Promise<LoadedCode | null> {
    return withGrant(this.codes, { codeHash: hashToken(code) });
  }

  /** Marks the code used; false when it already was (a concurrent exchange won). */
  async consumeCode(id: number): Promise<boolean> {
    const result = await this.codes.update({ id, usedAt: IsNull() }, { usedAt: nowToTheSecond() });
    return result.affected === 1;
  }

  /**
   * Stores the tokens of one exchange: the access token through TokensService (so the API's
   * bearer strategy accepts it like any other), the refresh token here, with `refreshTokenScopes`
   * when they differ from the access token's. False when the grant was revoked meanwhile; the new
   * tokens are then revoked with it.
   */
  async saveTokens(tokens: {
    grantId: number;
    userId: number;
    clientId: string;
    scopes: readonly string[];
    refreshTokenScopes?: readonly string[];
    accessToken: string;
    accessTokenExpiresAt: Date;
    refreshToken?: string;
    refreshTokenExpiresAt?: Date;
  }): Promise<boolean> {
    await this.accessTokens.save({
      token: tokens.accessToken,
      userId: tokens.userId,
      scopes: [...new Set(tokens.scopes)],
      expiresAt: tokens.accessTokenExpiresAt,
      clientId: tokens.clientId,
      grantId: tokens.grantId,
    });
    if (tokens.refreshToken && tokens.refreshTokenExpiresAt) {
      await this.refreshTokens.insert({
        tokenHash: hashToken(tokens.refreshToken),
        grantId: tokens.grantId,
        scopes: scopeColumn(tokens.refreshTokenScopes ?? tokens.scopes),
        createdAt: nowToTheSecond(),
        expiresAt: tokens.refreshTokenExpiresAt,
        rotatedAt: null,
        revokedAt: null,
      });
    }
    if (await this.isRevoked(tokens.grantId)) {
      await this.revoke(tokens.grantId);
      return false;
    }
    return true;
  }

  findRefreshToken(token: string): Promise<LoadedRefreshToken | null> {
    return withGrant(this.refreshTokens, { tokenHash: hashToken(token) });
  }

  /** Marks the refresh token as exchanged; false when it already was, or was revoked. */
  async rotateRefreshToken(id: number): Promise<boolean> {
    const result = await this.refreshTokens.update(
      { id, rotatedAt: IsNull(), revokedAt: IsNull() },
      { rotatedAt: nowToTheSecond() },
    );
    return result.affected === 1;
  }
}
