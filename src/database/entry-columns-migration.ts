import { TableColumn, type QueryRunner } from 'typeorm';

const ENTRIES = 'rating_entries';

type EntrySqlType = 'varchar' | 'text' | 'boolean' | 'smallint' | 'int' | 'date';

/** The column a migration adds, and the value the entries already there take. */
interface NewColumn {
  name: string;
  type: EntrySqlType;
  value: string | number | boolean | null;
  length?: number;
}

/**
 * For the migration of a new entry field (docs/extending.md "Add a field to entries"): adds its
 * column to `rating_entries` as the entity describes it (ENTRY_COLUMNS and NULLABLE: no default
 * in the schema but NULL for a nullable field), the existing entries holding `value`, on SQLite
 * and MySQL/MariaDB alike, so that `migration:generate` finds nothing left to change.
 */
export async function addEntryColumn(
  queryRunner: QueryRunner,
  name: string,
  type: EntrySqlType,
  value: string | number | boolean | null,
  length?: number,
): Promise<void> {
  const column: NewColumn = { name, type, value, length };
  if (queryRunner.connection.options.type === 'mysql') await addMysqlColumn(queryRunner, column);
  else await addSqliteColumn(queryRunner, column);
}

export async function dropEntryColumn(queryRunner: QueryRunner, name: string): Promise<void> {
  await queryRunner.dropColumn(ENTRIES, name);
}

function literal(value: string | number | boolean): string {
  return typeof value === 'string' ? `'${value.replace(/'/g, "''")}'` : String(Number(value));
}

/** Added with `value` as its default for the rows there, which is then dropped. */
async function addMysqlColumn(
  queryRunner: QueryRunner,
  { name, type, value, length }: NewColumn,
): Promise<void> {
  const shape = {
    name,
    type,
    isNullable: value === null,
    ...(length ? { length: String(length) } : {}),
  };
  if (value === null) {
    await queryRunner.addColumn(ENTRIES, new TableColumn({ ...shape, default: 'NULL' }));
    return;
  }
  await queryRunner.addColumn(ENTRIES, new TableColumn({ ...shape, default: literal(value) }));
  await queryRunner.query(`ALTER TABLE ${ENTRIES} ALTER COLUMN ${name} DROP DEFAULT`);
}

/**
 * SQLite's ADD COLUMN needs a default for a NOT NULL column, and it cannot drop one afterwards:
 * the table is made again from its own SQL with the column added (everything else kept as it is
 * written, which TypeORM's own table copy would rewrite), filled from the old one, and its
 * indexes and its AUTOINCREMENT counter made again. Nothing refers to entries, so dropping the old table cascades nowhere.
 */
async function addSqliteColumn(
  queryRunner: QueryRunner,
  { name, type, value, length }: NewColumn,
): Promise<void> {
  const [{ sql }] = (await queryRunner.query(
    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
    [ENTRIES],
  )) as { sql: string }[];
  const indexes = (await queryRunner.query(
    "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    [ENTRIES],
  )) as { sql: string }[];
  const columns = (
    (await queryRunner.query(`PRAGMA table_info("${ENTRIES}")`)) as { name: string }[]
  )
    .map((column) => `"${column.name}"`)
    .join(', ');
  const counter = (await queryRunner.query('SELECT seq FROM sqlite_sequence WHERE name = ?', [
    ENTRIES,
  ])) as { seq: number }[];
  const sqlType = { int: 'integer', varchar: `varchar(${length ?? 255})` }[type as string] ?? type;
  const definition = `"${name}" ${sqlType}${value === null ? ' DEFAULT NULL' : ' NOT NULL'}`;
  const constraints = sql.indexOf(', CONSTRAINT ');
  const end = constraints >= 0 ? constraints : sql.lastIndexOf(')');
  const created = `${sql.slice(0, end)}, ${definition}${sql.slice(end)}`.replace(
    `CREATE TABLE "${ENTRIES}"`,
    `CREATE TABLE "new_${ENTRIES}"`,
  );
  await queryRunner.query(created);
  await queryRunner.query(
    `INSERT INTO "new_${ENTRIES}" (${columns}, "${name}") SELECT ${columns}, ${
      value === null ? 'NULL' : literal(value)
    } FROM "${ENTRIES}"`,
  );
  await queryRunner.query(`DROP TABLE "${ENTRIES}"`);
  await queryRunner.query(`ALTER TABLE "new_${ENTRIES}" RENAME TO "${ENTRIES}"`);
  for (const index of indexes) await queryRunner.query(index.sql);
  // The AUTOINCREMENT counter, so that ids of deleted entries are not given again.
  if (counter.length > 0) {
    await queryRunner.query('UPDATE sqlite_sequence SET seq = ? WHERE name = ?', [
      counter[0].seq,
      ENTRIES,
    ]);
  }
}
