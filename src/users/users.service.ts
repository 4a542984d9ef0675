import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { nowToTheSecond } from '../common/timestamps';
import { isUniqueViolation } from '../database/errors';
import { rawBoolean, rawIsoSeconds } from '../database/raw-values';
import { isSqlite } from '../database/transactions';
import { decoyHash, hashPassword, verifyPassword } from './password-hash';
import { User } from './user.entity';

const MAX_NAME_LENGTH = 64;
const BUMP_LIST_VERSION_SQL = 'UPDATE users SET list_version = list_version + 1 WHERE id = ?';
const MAX_NAME_SUFFIX = 1000;
// SQLite refuses statements with very many parameters.
const BUMP_BATCH = 500;
const USER_NAME_SQL = 'SELECT name FROM users WHERE id = ?';
// Not encodable as UTF-8: the driver would send U+FFFD in its place.
const LONE_SURROGATE = /\p{Surrogate}/u;
const EXACT_NAME_SQL = {
  // SQLite compares text with memcmp (BINARY collation) unless told otherwise: exact already.
  sqlite: 'SELECT id, created_at FROM users WHERE name = ?',
  // MySQL/MariaDB collations fold case and accents and pad with spaces (utf8mb4_general_ci is the
  // usual default): the indexed equality finds the candidates, the byte comparison (binary strings
  // never pad) keeps the exact one.
  mysql:
    'SELECT id, created_at FROM users WHERE name = ? AND CAST(name AS BINARY) = CAST(? AS BINARY)',
};

/** 1 to 64 characters, no control characters, no leading or trailing white space. */
export function isValidUserName(name: string): boolean {
  return (
    name.length > 0 &&
    name.trim() === name &&
    [...name].length <= MAX_NAME_LENGTH &&
    ![...name].some((character) => character.charCodeAt(0) < 0x20 || character === '\u007f')
  );
}

export class UserNameTakenError extends Error {
  constructor(name: string) {
    super(`a user named "${name}" already exists`);
  }
}

export class InvalidUserNameError extends Error {
  constructor(name: string) {
    super(
      `invalid user name ${JSON.stringify(name)}: use 1 to ${MAX_NAME_LENGTH} characters, without control characters or leading or trailing spaces`,
    );
  }
}

/** A user as `users list` shows it. */
export interface ListedUser {
  id: number;
  name: string;
  joined_at: string;
  /** Whether the user can sign in on the consent page (a password is set). */
  has_password: boolean;
}

const LIST_SQL =
  'SELECT id, name, created_at, password_hash IS NOT NULL AS has_password FROM users ORDER BY id';

export class UnknownUserError extends Error {
  constructor(name: string) {
    super(`no user named "${name}"`);
  }
}

@Injectable()
export class UsersService {
  constructor(@InjectRepository(User) private readonly users: Repository<User>) {}

  /** Creates a user, with a password when one is given (hashed first: a weak one creates nothing). */
  async create(name: string, password?: string): Promise<User> {
    if (!isValidUserName(name)) throw new InvalidUserNameError(name);
    const passwordHash = password === undefined ? null : await hashPassword(password);
    try {
      const user = await this.users.save(
        this.users.create({ name, createdAt: nowToTheSecond(), passwordHash }),
        { transaction: false },
      );
      delete user.passwordHash;
      return user;
    } catch (error) {
      if (isUniqueViolation(error)) throw new UserNameTakenError(name);
      throw error;
    }
  }

  /**
   * Creates a user without a password in the caller's transaction, named `base` or, when that is
   * taken, `base-2`, `base-3`, … (cut to fit the length limit). `base` must be a valid name.
   */
  async createWithFreeName(manager: EntityManager, base: string): Promise<User> {
    if (!isValidUserName(base)) throw new InvalidUserNameError(base);
    for (let n = 1; ; n++) {
      const suffix = n === 1 ? '' : `-${n}`;
      const name =
        [...base]
          .slice(0, MAX_NAME_LENGTH - suffix.length)
          .join('')
          .trimEnd() + suffix;
      const createdAt = nowToTheSecond();
      try {
        const { identifiers } = await manager.insert(User, { name, createdAt, passwordHash: null });
        return manager.create(User, { id: identifiers[0].id as number, name, createdAt });
      } catch (error) {
        if (!isUniqueViolation(error) || n >= MAX_NAME_SUFFIX) throw error;
      }
    }
  }

  /** The user named exactly `name` (see findByExactName). */
  async setPassword(name: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    const user = await this.findByExactName(name);
    const result = user ? await this.users.update({ id: user.id }, { passwordHash }) : null;
    if (!result?.affected) throw new UnknownUserError(name);
  }

  /**
   * The user when the name and password match, else null. An unknown name or a user without a
   * password costs the same scrypt run, so the answer time does not tell which names exist.
   */
  async verifyCredentials(name: string, password: string): Promise<User | null> {
    const user = isValidUserName(name)
      ? await this.users
          .createQueryBuilder('user')
          .addSelect('user.passwordHash')
          .where('user.name = :name', { name })
          .getOne()
      : null;
    const matches = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
    if (!user?.passwordHash || !matches) return null;
    delete user.passwordHash;
    return user;
  }

  findByName(name: string): Promise<User | null> {
    return this.users.findOneBy({ name });
  }

  /**
   * The user named exactly `name`, compared code point by code point through the unique index
   * (contract §18): letter case, accents and trailing spaces count whatever the column's
   * collation. A name no user could have is looked up nowhere.
   */
  async findByExactName(name: string): Promise<{ id: number; createdAt: string } | null> {
    if (!isValidUserName(name) || LONE_SURROGATE.test(name)) return null;
    const sqlite = isSqlite(this.users.manager.connection);
    const [row] = await this.users.query<{ id: number; created_at: Date | string }[]>(
      sqlite ? EXACT_NAME_SQL.sqlite : EXACT_NAME_SQL.mysql,
      sqlite ? [name] : [name, name],
    );
    return row ? { id: Number(row.id), createdAt: rawIsoSeconds(row.created_at) } : null;
  }

  /** Fails with UnknownUserError unless a user is named exactly `name`. */
  async assertExists(name: string): Promise<void> {
    if (!(await this.findByExactName(name))) throw new UnknownUserError(name);
  }

  /**
   * Marks the user's list as changed, inside the transaction that changes it (`manager`), so that
   * the version and the list commit together. It also locks the user's row until that commit.
   */
  async listChanged(userId: number, manager: EntityManager): Promise<void> {
    await manager.query(BUMP_LIST_VERSION_SQL, [userId]);
  }

  /**
   * Takes the row lock listChanged takes, without moving the version (MySQL/MariaDB; a SQLite
   * transaction already holds the database's write lock): the user's writes wait for the caller's
   * transaction, which may end up writing nothing.
   */
  async holdList(userId: number, manager: EntityManager): Promise<void> {
    if (manager.connection.options.type === 'better-sqlite3') return;
    await manager.query('SELECT id FROM users WHERE id = ? FOR UPDATE', [userId]);
  }

  /** listChanged for several users at once. */
  async listsChanged(userIds: number[], manager: EntityManager): Promise<void> {
    for (let i = 0; i < userIds.length; i += BUMP_BATCH) {
      const batch = userIds.slice(i, i + BUMP_BATCH);
      await manager.query(
        `UPDATE users SET list_version = list_version + 1 WHERE id IN (${batch.map(() => '?').join(', ')})`,
        batch,
      );
    }
  }

  /** Every user, by id. */
  async list(): Promise<ListedUser[]> {
    const rows =
      await this.users.query<
        { id: number; name: string; created_at: Date | string; has_password: number | string }[]
      >(LIST_SQL);
    return rows.map((row) => ({
      id: Number(row.id),
      name: row.name,
      joined_at: rawIsoSeconds(row.created_at),
      has_password: rawBoolean(row.has_password),
    }));
  }

  /**
   * Deletes the user's row in the caller's transaction (`manager`), the last step of erasing a
   * user: every other module has removed its rows of the user before.
   */
  async delete(manager: EntityManager, id: number): Promise<void> {
    await manager.delete(User, { id });
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOneBy({ id });
  }

  /** The user's name, read in the caller's transaction (`manager`); null when there is none. */
  async nameIn(manager: EntityManager, id: number): Promise<string | null> {
    const rows = await manager.query<{ name: string }[]>(USER_NAME_SQL, [id]);
    return rows[0]?.name ?? null;
  }
}
