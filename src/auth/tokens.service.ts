import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { hash } from 'node:crypto';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { randomBase64Url } from '../common/random-string';
import { nowToTheSecond } from '../common/timestamps';
import { rawUtcDate } from '../database/raw-values';
import { selectFirst } from '../database/select-arrays';
import { UsersService } from '../users/users.service';
import { AccessToken } from './access-token.entity';
import type { AuthenticatedUser } from './authenticated-user';
import { ALL_SCOPES, isScope } from './scopes';

export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
const MAX_TOKEN_TTL_SECONDS = 10 * 365 * 24 * 3600;

export class TokenRequestError extends Error {}

export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** 32 bytes = 256 bits from the CSPRNG (contract §4), base64url: 43 characters. */
export function generateOpaqueToken(): string {
  return randomBase64Url(32);
}

/** What is stored about an access token, for OAuth introspection and revocation (RFC 7662, 7009). */
export interface AccessTokenInfo {
  userId: number;
  userName: string;
  scopes: string[];
  clientId: string | null;
  grantId: number | null;
  issuedAt: Date;
  expiresAt: Date;
  /** Neither expired nor revoked. */
  active: boolean;
}

/** An access token as `tokens list` shows it: never the token, which is not stored. */
export interface StoredAccessToken {
  id: number;
  clientId: string | null;
  scopes: string;
  issuedAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

export interface NewAccessToken {
  token: string;
  userId: number;
  scopes: readonly string[];
  expiresAt: Date;
  clientId: string | null;
  grantId: number | null;
}

interface LiveTokenRow {
  user_id: number;
  user_name: string;
  scopes: string;
  client_id: string | null;
  client_name: string | null;
  expires_at: Date | string;
  revoked_at: Date | string | null;
}

// Every API request runs this: one constant statement rather than a query built per call, and
// `users` joined (a read of the users module's table) rather than asked of UsersService after;
// `oauth_clients` likewise (a read of the OAuth module's table: the client's name, for history).
const LIVE_TOKEN_SQL = `SELECT u.id AS user_id, u.name AS user_name, t.scopes AS scopes,
  t.client_id AS client_id, c.name AS client_name, t.expires_at AS expires_at,
  t.revoked_at AS revoked_at
  FROM access_tokens t INNER JOIN users u ON u.id = t.user_id
  LEFT JOIN oauth_clients c ON c.client_id = t.client_id
  WHERE t.token_hash = ?`;

@Injectable()
export class TokensService {
  constructor(
    @InjectRepository(AccessToken) private readonly tokens: Repository<AccessToken>,
    private readonly users: UsersService,
  ) {}

  /** Issues a token and returns it: the only time it exists in clear. */
  async issue(
    userName: string,
    scopeList: string,
    ttlSeconds = DEFAULT_TOKEN_TTL_SECONDS,
    clientId: string | null = null,
  ): Promise<{ token: string; expiresAt: Date }> {
    const scopes = scopeList.split(' ').filter((s) => s.length > 0);
    if (scopes.length === 0) {
      throw new TokenRequestError(`no scopes given; choose from: ${ALL_SCOPES.join(' ')}`);
    }
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) {
      throw new TokenRequestError(
        `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; choose from: ${ALL_SCOPES.join(' ')}`,
      );
    }
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 0 || ttlSeconds > MAX_TOKEN_TTL_SECONDS) {
      throw new TokenRequestError(
        `ttl must be a whole number of seconds from 0 (already expired) to ${MAX_TOKEN_TTL_SECONDS}`,
      );
    }
    const user = await this.users.findByName(userName);
    if (!user) throw new TokenRequestError(`no user named "${userName}"`);

    const token = generateOpaqueToken();
    // Stored to the second: rounded up, so a token lives at least its ttl (0: expired at once).
    const expiresAt =
      ttlSeconds === 0
        ? nowToTheSecond()
        : new Date(Math.ceil((Date.now() + ttlSeconds * 1000) / 1000) * 1000);
    await this.save({ token, userId: user.id, scopes, expiresAt, clientId, grantId: null });
    return { token, expiresAt };
  }

  /**
   * Stores a token made elsewhere (the OAuth token endpoint), as its hash, exactly like `issue`
   * does: the bearer strategy cannot tell them apart.
   */
  async save(entry: NewAccessToken): Promise<void> {
    await this.tokens.insert({
      tokenHash: hashToken(entry.token),
      userId: entry.userId,
      scopes: [...new Set(entry.scopes)].join(' '),
      clientId: entry.clientId,
      grantId: entry.grantId,
      createdAt: nowToTheSecond(),
      expiresAt: entry.expiresAt,
      revokedAt: null,
    });
  }

  /** Everything stored about a token, live or not; null when it was never issued. */
  async describe(token: string): Promise<AccessTokenInfo | null> {
    const row = await this.tokens.findOne({
      where: { tokenHash: hashToken(token) },
      relations: { user: true },
    });
    if (!row || !row.user) return null;
    return {
      userId: row.userId,
      userName: row.user.name,
      scopes: row.scopes.split(' ').filter((scope) => scope.length > 0),
      clientId: row.clientId,
      grantId: row.grantId,
      issuedAt: row.createdAt,
      expiresAt: row.expiresAt,
      active: row.revokedAt === null && row.expiresAt.getTime() > Date.now(),
    };
  }

  /** Revokes every access token of an OAuth grant. */
  async revokeGrant(grantId: number): Promise<void> {
    await this.tokens.update({ grantId, revokedAt: IsNull() }, { revokedAt: nowToTheSecond() });
  }

  /** Revokes every live access token of a user; returns how many. */
  async revokeUser(userId: number): Promise<number> {
    const result = await this.tokens.update(
      { userId, revokedAt: IsNull() },
      { revokedAt: nowToTheSecond() },
    );
    return result.affected ?? 0;
  }

  /** Every access token stored for the user (expired and revoked ones until purged), oldest first. */
  async listOfUser(userId: number): Promise<StoredAccessToken[]> {
    const rows = await this.tokens.find({ where: { userId }, order: { id: 'ASC' } });
    return rows.map((row) => ({
      id: row.id,
      clientId: row.clientId,
      scopes: row.scopes,
      issuedAt: row.createdAt,
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
    }));
  }

  /** Deletes every access token of the user, in the caller's transaction (`manager`). */
  async deleteOfUser(manager: EntityManager, userId: number): Promise<void> {
    await manager.delete(AccessToken, { userId });
  }

  /** Deletes every access token issued to the OAuth client, in the caller's transaction. */
  async deleteOfClient(manager: EntityManager, clientId: string): Promise<void> {
    await manager.delete(AccessToken, { clientId });
  }

  /** Revokes a token; false when no such token was ever issued. Revoking twice is harmless. */
  async revoke(token: string): Promise<boolean> {
    const tokenHash = hashToken(token);
    const found = await this.tokens.existsBy({ tokenHash });
    if (!found) return false;
    await this.tokens.update({ tokenHash, revokedAt: IsNull() }, { revokedAt: nowToTheSecond() });
    return true;
  }

  /** The user behind a live token, or null when it is unknown, expired or revoked. */
  async authenticate(token: string): Promise<AuthenticatedUser | null> {
    const row = await selectFirst<LiveTokenRow>(this.tokens.manager.connection, LIVE_TOKEN_SQL, [
      hashToken(token),
    ]);
    if (!row || row.revoked_at !== null || rawUtcDate(row.expires_at).getTime() <= Date.now()) {
      return null;
    }
    return {
      id: row.user_id,
      name: row.user_name,
      scopes: new Set(row.scopes.split(' ')),
      clientId: row.client_id,
      clientName: row.client_name,
      kind: 'opaque',
      subject: null,
    };
  }
}
