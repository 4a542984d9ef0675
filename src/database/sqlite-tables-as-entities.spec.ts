import { DataSource } from 'typeorm';
import { useScratchSqlite } from '../../test/utils/scratch-sqlite';
import { MIGRATIONS } from './typeorm-options';
import { SqliteTablesAsEntities1800001300000 } from './migrations/1800001300000-sqlite-tables-as-entities';

const AT = "'2024-01-01 00:00:00'";
const ROWS = [
  `INSERT INTO users (name, created_at, password_hash, list_version) VALUES
    ('a', ${AT}, NULL, 3), ('b', ${AT}, 'hash', 0), ('c', ${AT}, NULL, 0)`,
  // The last user goes: its id is not given again, before the migration or after.
  "DELETE FROM users WHERE name = 'c'",
  `INSERT INTO oauth_clients (client_id, name, secret_hash, redirect_uris, created_at)
    VALUES ('app', 'App', NULL, '[]', ${AT})`,
  `INSERT INTO oauth_grants (oauth_client_id, user_id, created_at) VALUES (1, 1, ${AT})`,
  `INSERT INTO access_tokens (token_hash, user_id, scopes, created_at, expires_at, grant_id)
    VALUES ('t1', 1, 's', ${AT}, ${AT}, 1), ('t2', 2, 's', ${AT}, ${AT}, NULL)`,
  `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, scopes, created_at, expires_at)
    VALUES ('r1', 1, 's', ${AT}, ${AT})`,
  `INSERT INTO oauth_authorization_codes (code_hash, grant_id, redirect_uri, scopes,
    code_challenge, code_challenge_method, created_at, expires_at)
    VALUES ('c1', 1, 'https://app/cb', 's', 'x', 'S256', ${AT}, ${AT})`,
  `INSERT INTO external_identities (issuer, subject, user_id, created_at) VALUES ('i', 's', 2, ${AT})`,
  `INSERT INTO titles VALUES ('anime', 1, 5114, 'FMA', 64, 24, NULL, NULL),
    ('manga', 1, NULL, 'Berserk', NULL, NULL, 300, 40)`,
  `INSERT INTO rating_entries (user_id, media_type, title_id, status, is_visible, public_rating,
    public_fraction, personal_rating, episodes_watched, chapters_read, volumes_read, start_date,
    end_date, is_repeating, times_repeated, repeat_desire, notes, priority, created_at,
    updated_at, revision)
    VALUES (1, 'anime', 1, 'completed', 1, 9, 5, 10, 64, 0, 0, '2024-01-02', NULL, 0, 0, 0, 'n',
      0, ${AT}, ${AT}, 1)`,
  `INSERT INTO rating_revisions (user_id, media_type, revision, catalog_version, public_version)
    VALUES (1, 'anime', 1, 2, 3)`,
  `INSERT INTO sync_deletions (user_id, media_type, title_id, revision, deleted_at)
    VALUES (1, 'manga', 1, 5, ${AT})`,
  "INSERT INTO sync_keys VALUES (1, 'secret')",
];

const TABLES = [
  'users',
  'oauth_clients',
  'titles',
  'oauth_grants',
  'access_tokens',
  'oauth_authorization_codes',
  'oauth_refresh_tokens',
  'external_identities',
  'rating_entries',
  'rating_revisions',
  'sync_deletions',
  'sync_keys',
  'purge_leases',
];

describe('migration 1800001300000 on SQLite: the tables rebuilt as the entities describe them', () => {
  const openScratch = useScratchSqlite('tables-as-entities-');
  const open = (migrations: typeof MIGRATIONS) => openScratch(migrations, { transaction: 'all' });
  /** Every row of the rebuilt tables, each value with its storage class. */
  const contents = async (dataSource: DataSource) => {
    const tables: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const columns = (
        await dataSource.query<{ name: string }[]>(`SELECT name FROM pragma_table_info('${table}')`)
      ).map((column) => `typeof("${column.name}"), "${column.name}"`);
      tables[table] = await dataSource.query(
        `SELECT ${columns.join(', ')} FROM "${table}" ORDER BY 2, 4`,
      );
    }
    return tables;
  };
  const state = async (dataSource: DataSource) => ({
    contents: await contents(dataSource),
    counters: await dataSource.query(
      "SELECT name, seq, typeof(seq) FROM sqlite_sequence WHERE seq > 0 AND name <> 'migrations' ORDER BY name",
    ),
    indexes: await dataSource.query(
      "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
    ),
    violations: await dataSource.query('PRAGMA foreign_key_check'),
  });
  const definition = async (dataSource: DataSource, table: string) =>
    (
      await dataSource.query<{ sql: string }[]>(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
        [table],
      )
    )[0].sql;

  it('keeps every row, value, index and counter; down(), with foreign keys enforced, too', async () => {
    const through = MIGRATIONS.slice(
      0,
      MIGRATIONS.indexOf(SqliteTablesAsEntities1800001300000) + 1,
    );
    const old = await open(through.slice(0, -1));
    for (const sql of ROWS) await old.query(sql);
    const before = await state(old);
    expect(before.counters).toContainEqual({ name: 'users', seq: 3, 'typeof(seq)': 'integer' });
    await old.destroy();

    const migrated = await open(through);
    expect(await state(migrated)).toEqual(before);
    expect(await definition(migrated, 'access_tokens')).toContain(
      '"user_id" integer NOT NULL, "scopes" varchar(255) NOT NULL, "client_id" varchar(64) DEFAULT NULL',
    );
    expect(await definition(migrated, 'access_tokens')).toContain(
      'CONSTRAINT "FK_access_tokens_grant" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants" ("id") ON DELETE CASCADE ON UPDATE RESTRICT',
    );
    await migrated.query(`INSERT INTO users (name, created_at) VALUES ('d', ${AT})`);
    expect(await migrated.query("SELECT id FROM users WHERE name = 'd'")).toEqual([{ id: 4 }]);
    await migrated.query("DELETE FROM users WHERE name = 'd'");

    // TypeORM's revert starts its transaction first: PRAGMA foreign_keys = OFF cannot apply.
    expect(await migrated.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
    const { counters, ...rest } = before;
    await migrated.undoLastMigration({ transaction: 'all' });
    expect(await state(migrated)).toEqual({
      ...rest,
      counters: counters.map((row: { name: string; seq: number }) =>
        row.name === 'users' ? { ...row, seq: 4 } : row,
      ),
    });
    expect(await definition(migrated, 'access_tokens')).toContain('"user_id" int NOT NULL');
    await migrated.destroy();
  });
});
