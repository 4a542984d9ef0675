import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { nowToTheSecond } from '../common/timestamps';
import { isDeadlock, isUniqueViolation } from '../database/errors';
import { rawUtcDate } from '../database/raw-values';
import { runTransaction } from '../database/transactions';
import { isValidUserName, UsersService } from '../users/users.service';
import { BlockedExternalIdentity } from './blocked-external-identity.entity';
import { ExternalIdentity } from './external-identity.entity';

/** The local user of an identity provider's pair (`iss`, `sub`). */
export interface ExternalUser {
  userId: number;
  userName: string;
  /** JWTs issued before this time are refused (`tokens revoke --user`); null when never revoked. */
  tokensRevokedBefore: Date | null;
}

interface ExternalUserRow {
  user_id: number;
  user_name: string;
  tokens_revoked_before: Date | string | null;
}

const MAX_CREATE_ATTEMPTS = 5;

// Every request with an external JWT runs this: `users` joined, a read of the users module's table.
const EXTERNAL_USER_SQL = `SELECT i.user_id AS user_id, u.name AS user_name,
  i.tokens_revoked_before AS tokens_revoked_before
  FROM external_identities i INNER JOIN users u ON u.id = i.user_id
  WHERE i.issuer = ? AND i.subject = ?`;

/**
 * Users of the company's identity provider (contract §19): a user is the pair (`iss`, `sub`);
 * its first valid token creates the local user. The unique key on the pair decides between
 * instances that see a new pair at once: one creates the user, the others read it.
 */
@Injectable()
export class ExternalIdentitiesService {
  constructor(
    @InjectRepository(ExternalIdentity)
    private readonly identities: Repository<ExternalIdentity>,
    @InjectRepository(BlockedExternalIdentity)
    private readonly blocked: Repository<BlockedExternalIdentity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
  ) {}

  /**
   * The local user of the pair, created on first sight and named after the first usable of
   * `names` (preferred_username, name, sub); null when the pair is blocked.
   */
  async userFor(
    issuer: string,
    subject: string,
    names: readonly unknown[],
  ): Promise<ExternalUser | null> {
    for (let attempt = 1; ; attempt++) {
      const known = await this.find(issuer, subject);
      if (known) return known;
      if (await this.blocked.existsBy({ issuer, subject })) return null;
      try {
        await runTransaction(this.dataSource, async (manager) => {
          const user = await this.users.createWithFreeName(manager, userNameFrom(names));
          await manager.insert(ExternalIdentity, {
            issuer,
            subject,
            userId: user.id,
            createdAt: nowToTheSecond(),
            tokensRevokedBefore: null,
          });
        });
      } catch (error) {
        // Another transaction created the pair's user first (the pair's unique key), or MariaDB
        // broke a deadlock between such transactions: read the winner's user, or try again.
        const lostRace = isUniqueViolation(error) || isDeadlock(error);
        if (!lostRace || attempt >= MAX_CREATE_ATTEMPTS) throw error;
      }
    }
  }

  /** JWTs of the user's pairs issued before now are refused from now on; returns how many pairs. */
  async revokeTokensIssuedBefore(userId: number, now = Date.now()): Promise<number> {
    // Rounded up to the second, as `iat` is: a token issued in the second of the revocation is refused.
    const before = new Date(Math.ceil(now / 1000) * 1000);
    const result = await this.identities.update({ userId }, { tokensRevokedBefore: before });
    return result.affected ?? 0;
  }

  /**
   * Blocks every pair of the user, so that deleting the user does not let the pair's next token
   * create it again (contract §19). Call it before deleting the user: the pairs go with it.
   */
  async blockUser(
    userId: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<number> {
    const pairs = await manager.findBy(ExternalIdentity, { userId });
    for (const { issuer, subject } of pairs) {
      await manager.upsert(
        BlockedExternalIdentity,
        { issuer, subject, blockedAt: nowToTheSecond() },
        ['issuer', 'subject'],
      );
    }
    return pairs.length;
  }

  /** Forgets the user's pairs, in the caller's transaction (`manager`): block them first. */
  async deleteOfUser(manager: EntityManager, userId: number): Promise<void> {
    await manager.delete(ExternalIdentity, { userId });
  }

  /** The user's pairs (`iss`, `sub`), oldest first. */
  async ofUser(userId: number): Promise<{ iss: string; sub: string }[]> {
    const pairs = await this.identities.find({ where: { userId }, order: { id: 'ASC' } });
    return pairs.map(({ issuer, subject }) => ({ iss: issuer, sub: subject }));
  }

  /** Lifts the block of a pair; false when it was not blocked. */
  async unblock(issuer: string, subject: string): Promise<boolean> {
    const result = await this.blocked.delete({ issuer, subject });
    return (result.affected ?? 0) > 0;
  }

  private async find(issuer: string, subject: string): Promise<ExternalUser | null> {
    const [row] = await this.dataSource.query<ExternalUserRow[]>(EXTERNAL_USER_SQL, [
      issuer,
      subject,
    ]);
    if (!row) return null;
    return {
      userId: row.user_id,
      userName: row.user_name,
      tokensRevokedBefore:
        row.tokens_revoked_before === null ? null : rawUtcDate(row.tokens_revoked_before),
    };
  }
}

/** The first candidate that makes a valid user name once cleaned; the last one cut to fit. */
export function userNameFrom(candidates: readonly unknown[]): string {
  for (const candidate of candidates) {
    if (typeof candidate !== 'string') continue;
    // Control characters out, white space trimmed, at most 64 characters.
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    const cleaned = [...candidate.replace(/[\u0000-\u001f\u007f]/g, '').trim()]
      .slice(0, 64)
      .join('')
      .trim();
    if (isValidUserName(cleaned)) return cleaned;
  }
  return 'user';
}
