import { MigrationInterface, QueryRunner } from 'typeorm';

/** A column: `int` is written `integer` from this migration on; without `notNull` it is nullable. */
interface Column {
  name: string;
  type: string;
  notNull?: true;
  default?: string;
  /** `autoincrement`: the rowid, never reused; `key`: the one primary key column. */
  primary?: 'autoincrement' | 'key';
}

interface ForeignKey {
  name: string;
  columns: string[];
  table: string;
  referenced: string[];
  onDelete: 'CASCADE' | 'RESTRICT';
  /** Before this migration: declared in its column (access_tokens.grant_id, added by ADD COLUMN). */
  inColumn?: true;
}

interface TableDefinition {
  name: string;
  columns: Column[];
  foreignKeys?: ForeignKey[];
  /** A composite primary key. */
  primaryKey?: string[];
}

const id: Column = { name: 'id', type: 'integer', primary: 'autoincrement' };
const notNull = (name: string, type: string): Column => ({ name, type, notNull: true });
const nullable = (name: string, type: string): Column => ({ name, type });
const counter = (name: string): Column => ({ name, type: 'integer', notNull: true, default: '0' });
const cascade = (name: string, column: string, table: string, inColumn?: true): ForeignKey => ({
  name,
  columns: [column],
  table,
  referenced: ['id'],
  onDelete: 'CASCADE',
  ...(inColumn ? { inColumn } : {}),
});

/**
 * Every table that this migration rebuilds, parents before the tables that refer to them: all the
 * tables with a foreign key, and every table they refer to, so that the old tables can be dropped
 * children first without a cascade, whether or not foreign keys are enforced at the time.
 */
const TABLES: TableDefinition[] = [
  {
    name: 'users',
    columns: [
      id,
      notNull('name', 'varchar(64)'),
      notNull('created_at', 'datetime'),
      nullable('password_hash', 'varchar(255)'),
      counter('list_version'),
    ],
  },
  {
    name: 'oauth_clients',
    columns: [
      id,
      notNull('client_id', 'varchar(64)'),
      notNull('name', 'varchar(100)'),
      nullable('secret_hash', 'varchar(64)'),
      notNull('redirect_uris', 'text'),
      notNull('created_at', 'datetime'),
    ],
  },
  {
    name: 'titles',
    columns: [
      notNull('media_type', 'varchar(5)'),
      notNull('id', 'int'),
      nullable('external_id', 'int'),
      notNull('title', 'varchar(500)'),
      nullable('episodes', 'int'),
      nullable('episode_minutes', 'int'),
      nullable('chapters', 'int'),
      nullable('volumes', 'int'),
    ],
    primaryKey: ['media_type', 'id'],
  },
  {
    name: 'oauth_grants',
    columns: [
      id,
      notNull('oauth_client_id', 'int'),
      notNull('user_id', 'int'),
      notNull('created_at', 'datetime'),
      nullable('revoked_at', 'datetime'),
    ],
    foreignKeys: [
      cascade('FK_oauth_grants_client', 'oauth_client_id', 'oauth_clients'),
      cascade('FK_oauth_grants_user', 'user_id', 'users'),
    ],
  },
  {
    name: 'access_tokens',
    columns: [
      id,
      notNull('token_hash', 'varchar(64)'),
      notNull('user_id', 'int'),
      notNull('scopes', 'varchar(255)'),
      nullable('client_id', 'varchar(64)'),
      notNull('created_at', 'datetime'),
      notNull('expires_at', 'datetime'),
      nullable('revoked_at', 'datetime'),
      nullable('grant_id', 'integer'),
    ],
    foreignKeys: [
      cascade('FK_access_tokens_grant', 'grant_id', 'oauth_grants', true),
      cascade('FK_access_tokens_user', 'user_id', 'users'),
    ],
  },
  {
    name: 'oauth_authorization_codes',
    columns: [
      id,
      notNull('code_hash', 'varchar(64)'),
      notNull('grant_id', 'int'),
      notNull('redirect_uri', 'varchar(2048)'),
      notNull('scopes', 'varchar(255)'),
      notNull('code_challenge', 'varchar(128)'),
      notNull('code_challenge_method', 'varchar(10)'),
      notNull('created_at', 'datetime'),
      notNull('expires_at', 'datetime'),
      nullable('used_at', 'datetime'),
    ],
    foreignKeys: [cascade('FK_oauth_authorization_codes_grant', 'grant_id', 'oauth_grants')],
  },
  {
    name: 'oauth_refresh_tokens',
    columns: [
      id,
      notNull('token_hash', 'varchar(64)'),
      notNull('grant_id', 'int'),
      notNull('scopes', 'varchar(255)'),
      notNull('created_at', 'datetime'),
      notNull('expires_at', 'datetime'),
      nullable('rotated_at', 'datetime'),
      nullable('revoked_at', 'datetime'),
    ],
    foreignKeys: [cascade('FK_oauth_refresh_tokens_grant', 'grant_id', 'oauth_grants')],
  },
  {
    name: 'external_identities',
    columns: [
      id,
      notNull('issuer', 'varchar(255)'),
      notNull('subject', 'varchar(255)'),
      notNull('user_id', 'int'),
      notNull('created_at', 'datetime'),
      nullable('tokens_revoked_before', 'datetime'),
    ],
    foreignKeys: [cascade('FK_external_identities_user', 'user_id', 'users')],
  },
  {
    name: 'rating_entries',
    columns: [
      id,
      notNull('user_id', 'int'),
      notNull('media_type', 'varchar(5)'),
      notNull('title_id', 'int'),
      notNull('status', 'varchar(16)'),
      notNull('is_visible', 'boolean'),
      notNull('public_rating', 'smallint'),
      notNull('public_fraction', 'smallint'),
      notNull('personal_rating', 'smallint'),
      notNull('episodes_watched', 'int'),
      notNull('chapters_read', 'int'),
      notNull('volumes_read', 'int'),
      nullable('start_date', 'date'),
      nullable('end_date', 'date'),
      notNull('is_repeating', 'boolean'),
      notNull('times_repeated', 'int'),
      notNull('repeat_desire', 'smallint'),
      notNull('notes', 'text'),
      notNull('priority', 'smallint'),
      notNull('created_at', 'datetime'),
      notNull('updated_at', 'datetime'),
      counter('revision'),
    ],
    foreignKeys: [
      cascade('FK_rating_entries_user', 'user_id', 'users'),
      {
        name: 'FK_rating_entries_title',
        columns: ['media_type', 'title_id'],
        table: 'titles',
        referenced: ['media_type', 'id'],
        onDelete: 'RESTRICT',
      },
    ],
  },
  {
    name: 'rating_revisions',
    columns: [
      notNull('user_id', 'int'),
      notNull('media_type', 'varchar(5)'),
      notNull('revision', 'int'),
      counter('catalog_version'),
      counter('public_version'),
    ],
    foreignKeys: [cascade('FK_rating_revisions_user', 'user_id', 'users')],
    primaryKey: ['user_id', 'media_type'],
  },
  {
    name: 'sync_deletions',
    columns: [
      id,
      notNull('user_id', 'int'),
      notNull('media_type', 'varchar(5)'),
      notNull('title_id', 'int'),
      notNull('revision', 'int'),
      notNull('deleted_at', 'datetime'),
    ],
    foreignKeys: [cascade('FK_sync_deletions_user', 'user_id', 'users')],
  },
  {
    name: 'sync_keys',
    columns: [{ name: 'id', type: 'int', primary: 'key' }, notNull('secret', 'varchar(64)')],
  },
  {
    name: 'purge_leases',
    columns: [
      { name: 'name', type: 'varchar(64)', primary: 'key' },
      nullable('holder', 'varchar(64)'),
      notNull('expires_at', 'datetime'),
    ],
  },
];

const quote = (names: string[]) => names.map((name) => `"${name}"`).join(', ');

/**
 * The table as the entities describe it, in the words TypeORM reads back: `integer` (TypeORM
 * reads SQLite's `int` as a different type from the `int` of an entity), `DEFAULT NULL` on nullable
 * columns (see NULLABLE in src/database/columns.ts), and every foreign key a named table
 * constraint with both actions (see FOREIGN_KEY there).
 */
function entitiesDefinition({ name, columns, foreignKeys = [], primaryKey }: TableDefinition) {
  const parts = columns.map((column) => {
    const type = column.type === 'int' ? 'integer' : column.type;
    if (column.primary === 'autoincrement')
      return `"${column.name}" ${type} PRIMARY KEY AUTOINCREMENT NOT NULL`;
    if (column.primary === 'key') return `"${column.name}" ${type} PRIMARY KEY NOT NULL`;
    const rest = column.notNull
      ? ` NOT NULL${column.default === undefined ? '' : ` DEFAULT ${column.default}`}`
      : ' DEFAULT NULL';
    return `"${column.name}" ${type}${rest}`;
  });
  for (const key of foreignKeys) {
    parts.push(
      `CONSTRAINT "${key.name}" FOREIGN KEY (${quote(key.columns)}) REFERENCES "${key.table}" (${quote(key.referenced)}) ON DELETE ${key.onDelete} ON UPDATE RESTRICT`,
    );
  }
  if (primaryKey) parts.push(`PRIMARY KEY (${quote(primaryKey)})`);
  return `CREATE TABLE "${name}" (${parts.join(', ')})`;
}

/** The table as the migrations before this one made it. */
function formerDefinition({ name, columns, foreignKeys = [], primaryKey }: TableDefinition) {
  const inColumn = new Map(
    foreignKeys.filter((key) => key.inColumn).map((key) => [key.columns[0], key]),
  );
  const parts = columns.map((column) => {
    if (column.primary === 'autoincrement')
      return `"${column.name}" ${column.type} PRIMARY KEY AUTOINCREMENT NOT NULL`;
    if (column.primary === 'key') return `"${column.name}" ${column.type} PRIMARY KEY NOT NULL`;
    const key = inColumn.get(column.name);
    const reference = key
      ? ` CONSTRAINT "${key.name}" REFERENCES "${key.table}" (${quote(key.referenced)}) ON DELETE ${key.onDelete}`
      : '';
    const rest = column.notNull
      ? ` NOT NULL${column.default === undefined ? '' : ` DEFAULT ${column.default}`}`
      : '';
    return `"${column.name}" ${column.type}${rest}${reference}`;
  });
  for (const key of foreignKeys) {
    if (key.inColumn) continue;
    const onDelete = key.onDelete === 'CASCADE' ? ' ON DELETE CASCADE' : '';
    parts.push(
      `CONSTRAINT "${key.name}" FOREIGN KEY (${quote(key.columns)}) REFERENCES "${key.table}" (${quote(key.referenced)})${onDelete}`,
    );
  }
  if (primaryKey) parts.push(`PRIMARY KEY (${quote(primaryKey)})`);
  return `CREATE TABLE "${name}" (${parts.join(', ')})`;
}

/**
 * SQLite only: the tables made by the earlier migrations, rebuilt as the entities describe them, so
 * that `npm run migration:generate` on a migrated database finds nothing to change (MariaDB's
 * tables already match: there, `int` is `int`, a nullable column's default reads as NULL and a key
 * declared without ON UPDATE is RESTRICT). Nothing changes for the values: `int` and `integer`
 * have the same (integer) affinity, NULL was already every nullable column's default, and keys are
 * never updated; `rating_entries` → `titles` was already refused for a title that entries use
 * (NO ACTION, now RESTRICT). Rows, ids, indexes and AUTOINCREMENT counters are kept.
 *
 * SQLite cannot change a column's type in place: each table is copied aside, the old tables are
 * dropped children first (so no ON DELETE CASCADE fires, even where foreign keys are enforced:
 * TypeORM's revert runs with them on), made again parents first and filled from the copies.
 */
export class SqliteTablesAsEntities1800001300000 implements MigrationInterface {
  name = 'SqliteTablesAsEntities1800001300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await rebuild(queryRunner, entitiesDefinition);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await rebuild(queryRunner, formerDefinition);
  }
}

async function rebuild(
  queryRunner: QueryRunner,
  define: (table: TableDefinition) => string,
): Promise<void> {
  if (queryRunner.connection.options.type !== 'better-sqlite3') return;
  const kept = new Map<string, { indexes: string[]; sequence: number | null }>();
  for (const { name } of TABLES) {
    const indexes = (await queryRunner.query(
      "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
      [name],
    )) as { sql: string }[];
    const [sequence] = (await queryRunner.query('SELECT seq FROM sqlite_sequence WHERE name = ?', [
      name,
    ])) as { seq: number }[];
    kept.set(name, { indexes: indexes.map((index) => index.sql), sequence: sequence?.seq ?? null });
    await queryRunner.query(`CREATE TEMP TABLE "rebuilt_${name}" AS SELECT * FROM "${name}"`);
  }
  for (const { name } of [...TABLES].reverse()) await queryRunner.query(`DROP TABLE "${name}"`);
  for (const table of TABLES) {
    const { indexes, sequence } = kept.get(table.name)!;
    const columns = quote(table.columns.map((column) => column.name));
    await queryRunner.query(define(table));
    await queryRunner.query(
      `INSERT INTO "${table.name}" (${columns}) SELECT ${columns} FROM temp."rebuilt_${table.name}"`,
    );
    await queryRunner.query(`DROP TABLE temp."rebuilt_${table.name}"`);
    for (const index of indexes) await queryRunner.query(index);
    if (sequence !== null) {
      // The counter as it was: an id freed by a deletion is not given again.
      await queryRunner.query('DELETE FROM sqlite_sequence WHERE name = ?', [table.name]);
      await queryRunner.query(
        'INSERT INTO sqlite_sequence (name, seq) VALUES (?, CAST(? AS INTEGER))',
        [table.name, sequence],
      );
    }
  }
}
