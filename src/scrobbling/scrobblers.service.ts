import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { SCOPES } from '../auth/scopes';
import { ProblemException, PROBLEMS } from '../common/problem';
import { randomBase64Url } from '../common/random-string';
import { runTransaction } from '../database/transactions';
import { rawBoolean, rawUtcDate } from '../database/raw-values';
import { selectFirst } from '../database/select-arrays';
import { nowToTheSecond, toIsoSeconds } from '../common/timestamps';
import type { CreatedScrobblerView, CreateScrobblerDto, ScrobblerView } from './scrobblers.dto';
import { secretHash } from './scrobble-keys';
import { Scrobbler } from './scrobbler.entity';
import type { ScrobblerKind } from './parsers';

/** At most this many scrobblers per user (contract §21). */
export const MAX_SCROBBLERS_PER_USER = 20;
/** Kinds whose payloads name a user: only they take `server_user`. */
const NAMES_USERS: ReadonlySet<ScrobblerKind> = new Set(['jellyfin', 'plex', 'emby']);

/** The user's scrobblers (contract §21): created, listed, deleted, their secret replaced. */
@Injectable()
export class ScrobblersService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(
    user: AuthenticatedUser,
    body: CreateScrobblerDto,
    origin: string,
  ): Promise<CreatedScrobblerView> {
    if ((body.server_user ?? null) !== null && !NAMES_USERS.has(body.kind)) {
      throw ProblemException.validation([
        {
          field: 'server_user',
          message: `is not taken by ${body.kind} scrobblers, whose payloads name no user`,
        },
      ]);
    }
    const secret = newSecret();
    const scrobbler: Scrobbler = {
      id: randomBase64Url(12),
      userId: user.id,
      kind: body.kind,
      name: body.name,
      serverUser: body.server_user ?? null,
      rewatches: body.rewatches ?? false,
      visible: body.visible ?? false,
      mayWriteManga: body.kind === 'generic' && user.scopes.has(SCOPES.manga),
      // Contract §21: the OAuth client of the code flow; null for CLI and identity provider tokens.
      clientId: user.kind === 'opaque' ? user.clientId : null,
      secretHash: secretHash(secret),
      createdAt: nowToTheSecond(),
      lastUsedAt: null,
    };
    await runTransaction(this.dataSource, async (manager) => {
      // The user's row lock makes the cap hold against concurrent creations.
      if (manager.connection.options.type !== 'better-sqlite3') {
        await manager.query('SELECT id FROM users WHERE id = ? FOR UPDATE', [user.id]);
      }
      if (
        (await manager.count(Scrobbler, { where: { userId: user.id } })) >= MAX_SCROBBLERS_PER_USER
      ) {
        throw ProblemException.of(
          409,
          PROBLEMS.conflict,
          `You have ${MAX_SCROBBLERS_PER_USER} scrobblers, the most there can be; delete one first`,
        );
      }
      await manager.insert(Scrobbler, scrobbler);
    });
    return createdView(scrobbler, origin, secret);
  }

  async list(userId: number): Promise<ScrobblerView[]> {
    const rows = await this.dataSource
      .getRepository(Scrobbler)
      .find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map(listedView);
  }

  async remove(userId: number, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(Scrobbler).delete({ userId, id });
    if (!result.affected) throw notFound();
  }

  /** A new secret: the old URL is refused from the next request on. */
  async rotate(userId: number, id: string, origin: string): Promise<CreatedScrobblerView> {
    const repository = this.dataSource.getRepository(Scrobbler);
    const secret = newSecret();
    const result = await repository.update({ userId, id }, { secretHash: secretHash(secret) });
    if (!result.affected) throw notFound();
    const scrobbler = await repository.findOneByOrFail({ id });
    return createdView(scrobbler, origin, secret);
  }

  /**
   * The receiver's lookup, on every request: one constant statement (selectFirst) rather than
   * TypeORM's query builder, which builds and escapes the SQL again on each call.
   */
  async findBySecret(secret: string): Promise<Scrobbler | null> {
    const row = await selectFirst<ScrobblerRow>(this.dataSource, SCROBBLER_BY_SECRET, [
      secretHash(secret),
    ]);
    return row === undefined ? null : scrobblerOfRow(row);
  }

  /** Moves `last_used_at` to `atMs` (to the second), unless it is there already. */
  async touchNow(scrobbler: Scrobbler, atMs: number): Promise<void> {
    const second = Math.floor(atMs / 1000) * 1000;
    if (scrobbler.lastUsedAt?.getTime() === second) return;
    await this.dataSource
      .getRepository(Scrobbler)
      .update({ id: scrobbler.id }, { lastUsedAt: new Date(second) });
  }

  /** `clients delete`, or the client's grant revoked: the scrobblers its tokens created. */
  async deleteOfClient(manager: EntityManager, clientId: string, userId?: number): Promise<void> {
    await manager.delete(Scrobbler, userId === undefined ? { clientId } : { clientId, userId });
  }

  /** `tokens revoke --user`, `users delete`: every scrobbler of the user. */
  async deleteOfUser(manager: EntityManager, userId: number): Promise<number> {
    return (await manager.delete(Scrobbler, { userId })).affected ?? 0;
  }

  deleteAllOfUser(userId: number): Promise<number> {
    return this.deleteOfUser(this.dataSource.manager, userId);
  }
}

/** 192 random bits, URL-safe. */
function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

function notFound(): ProblemException {
  return ProblemException.notFound('You have no scrobbler with this id');
}

export function listedView(row: Scrobbler): ScrobblerView {
  return {
    id: row.id,
    kind: row.kind as ScrobblerKind,
    name: row.name,
    server_user: row.serverUser,
    rewatches: row.rewatches,
    visible: row.visible,
    created_at: toIsoSeconds(row.createdAt),
    last_used_at: row.lastUsedAt === null ? null : toIsoSeconds(row.lastUsedAt),
  };
}

function createdView(row: Scrobbler, origin: string, secret: string): CreatedScrobblerView {
  return {
    id: row.id,
    kind: row.kind as ScrobblerKind,
    name: row.name,
    server_user: row.serverUser,
    rewatches: row.rewatches,
    visible: row.visible,
    url: `${origin}/scrobble/${secret}`,
    created_at: toIsoSeconds(row.createdAt),
  };
}

const SCROBBLER_BY_SECRET =
  'SELECT id, user_id, kind, name, server_user, rewatches, visible, may_write_manga, client_id, ' +
  'secret_hash, created_at, last_used_at FROM scrobblers WHERE secret_hash = ?';

interface ScrobblerRow {
  id: string;
  user_id: number;
  kind: string;
  name: string;
  server_user: string | null;
  rewatches: number | boolean;
  visible: number | boolean;
  may_write_manga: number | boolean;
  client_id: string | null;
  secret_hash: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
}

function scrobblerOfRow(row: ScrobblerRow): Scrobbler {
  return Object.assign(new Scrobbler(), {
    id: row.id,
    userId: Number(row.user_id),
    kind: row.kind,
    name: row.name,
    serverUser: row.server_user,
    rewatches: rawBoolean(row.rewatches),
    visible: rawBoolean(row.visible),
    mayWriteManga: rawBoolean(row.may_write_manga),
    clientId: row.client_id,
    secretHash: row.secret_hash,
    createdAt: rawUtcDate(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : rawUtcDate(row.last_used_at),
  });
}
