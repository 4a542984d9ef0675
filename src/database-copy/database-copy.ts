import { DataSource, type DataSourceOptions, type EntityManager, type Table } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { describeDatabase } from '../database/describe-database';
import { MIGRATION_LEASE_TABLE, runMigrationsUnderLock } from '../database/migration-lock';
import { runTransaction } from '../database/transactions';
import { makeSqliteFolder } from '../database/typeorm-options';

/** At most this many bound values per INSERT (SQLite allows 32766, MySQL 65535). */
const VALUES_PER_STATEMENT = 10_000;
const ROWS_PER_BATCH = 1000;

/** A copy refused; the message says why. */
export class DatabaseCopyError extends Error {}

interface CopiedTable {
  name: string;
  columns: string[];
  primaryKey: string[];
  /** Per column that an entity maps: how to carry its value from one driver to the other. */
  mapped: Map<string, ColumnMetadata>;
}

/**
 * Copies every table of `source` (its schema as the database reports it, so that tables only
 * repositories' SQL uses come too) into the database of `targetOptions`: migrates the target,
 * refuses one that holds data, then, in one transaction of the target and from one read
 * transaction of the source, copies the tables parents first, in batches, and carries the
 * auto-increment counters over so that no deleted row's id is handed out again. Values of
 * columns an entity maps pass through both drivers (dates, booleans, JSON); others as read.
 * Returns the rows copied per table.
 */
export async function copyDatabase(
  source: DataSource,
  targetOptions: DataSourceOptions,
): Promise<Record<string, number>> {
  if (describeDatabase(source.options) === describeDatabase(targetOptions)) {
    throw new DatabaseCopyError('The target is the database of DATABASE_URL itself');
  }
  makeSqliteFolder(targetOptions);
  try {
    await runMigrationsUnderLock(targetOptions);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ER_BAD_DB_ERROR') throw error;
    const name = targetOptions.type === 'mysql' ? new URL(targetOptions.url ?? '').pathname : '';
    throw new DatabaseCopyError(
      `The target database does not exist (${describeDatabase(targetOptions)}): create it first (CREATE DATABASE ${decodeURIComponent(name.slice(1))})`,
    );
  }
  const target = await new DataSource({
    ...targetOptions,
    // A batch may take longer than a request's query timeout.
    ...(targetOptions.type === 'mysql' ? { enableQueryTimeout: false } : {}),
  }).initialize();
  try {
    const tables = orderByForeignKeys(await copiedTables(source, target));
    await refuseData(target, tables);
    return await runTransaction(source, async (reader) => {
      const counters = await nextIds(source, reader, tables);
      const counts = await target.transaction(async (writer) => {
        // What the migrations put in the target (a lease row) makes way for the source's rows.
        for (const table of [...tables].reverse()) {
          await writer.query(`DELETE FROM ${quote(target, table.name)}`);
        }
        const copied: Record<string, number> = {};
        for (const table of tables) {
          copied[table.name] = await copyTable(source, target, reader, writer, table);
        }
        if (target.options.type !== 'mysql') await setNextIds(target, writer, counters);
        return copied;
      });
      // ALTER TABLE commits on MySQL: after the rows, outside their transaction.
      if (target.options.type === 'mysql') await setNextIds(target, target.manager, counters);
      return counts;
    });
  } finally {
    await target.destroy();
  }
}

/**
 * The source's tables (not TypeORM's migration log, nor a Galera database's migration lease: the
 * target keeps its own), as in the target.
 */
async function copiedTables(source: DataSource, target: DataSource): Promise<TableWithParents[]> {
  const skipped = new Set([
    source.options.migrationsTableName ?? 'migrations',
    'typeorm_metadata',
    MIGRATION_LEASE_TABLE,
  ]);
  const read = async (dataSource: DataSource) => {
    const runner = dataSource.createQueryRunner();
    try {
      const own = (await runner.getTables())
        .map((table) => ({ table, path: dataSource.driver.parseTableName(table) }))
        // MySQL lists every schema's tables (information_schema's included): the database's only.
        .filter(
          ({ path }) => path.database === undefined || path.database === dataSource.driver.database,
        );
      return new Map(own.map(({ table, path }) => [path.tableName, table]));
    } finally {
      await runner.release();
    }
  };
  const [sourceTables, targetTables] = [await read(source), await read(target)];
  const copied: TableWithParents[] = [];
  for (const [name, table] of sourceTables) {
    // SQLite's own tables (sqlite_sequence: the counters, carried over by nextIds).
    if (skipped.has(name) || name.startsWith('sqlite_')) continue;
    const inTarget = targetTables.get(name);
    if (!inTarget) {
      throw new DatabaseCopyError(
        `The target has no table ${name} once migrated: the source's schema is not this version's`,
      );
    }
    const columns = table.columns.filter((column) => !column.generatedType).map((c) => c.name);
    const missing = columns.filter((column) => !inTarget.columns.some((c) => c.name === column));
    if (missing.length > 0) {
      throw new DatabaseCopyError(
        `The target's table ${name} has no column ${missing.join(', ')} once migrated: the source's schema is not this version's`,
      );
    }
    const primaryKey = table.columns.filter((column) => column.isPrimary).map((c) => c.name);
    if (primaryKey.length === 0) {
      throw new DatabaseCopyError(`Table ${name} has no primary key to copy it in batches by`);
    }
    const entity = source.entityMetadatas.find(
      (metadata) => metadata.tableName === name && metadata.tableType !== 'view',
    );
    const mapped = new Map(
      (entity?.columns ?? []).map((column) => [column.databaseName, column] as const),
    );
    copied.push({ name, columns, primaryKey, mapped, parents: parentsOf(source, table, name) });
  }
  return copied;
}

interface TableWithParents extends CopiedTable {
  parents: string[];
}

function parentsOf(source: DataSource, table: Table, name: string): string[] {
  return table.foreignKeys
    .map((key) => source.driver.parseTableName(key.referencedTableName).tableName)
    .filter((parent) => parent !== name);
}

/** Parents before children; a table that refers to itself is copied in key order. */
function orderByForeignKeys(tables: TableWithParents[]): CopiedTable[] {
  const ordered: CopiedTable[] = [];
  const placed = new Set<string>();
  let pending = [...tables].sort((a, b) => a.name.localeCompare(b.name));
  while (pending.length > 0) {
    const ready = pending.filter((table) => table.parents.every((parent) => placed.has(parent)));
    if (ready.length === 0) {
      throw new DatabaseCopyError(
        `The foreign keys of ${pending.map((table) => table.name).join(', ')} form a cycle: no order copies them`,
      );
    }
    for (const table of ready) {
      ordered.push(table);
      placed.add(table.name);
    }
    pending = pending.filter((table) => !placed.has(table.name));
  }
  return ordered;
}

/**
 * A table holds data when it has more rows than a freshly migrated database has there: what the
 * migrations insert themselves does not count.
 */
async function refuseData(target: DataSource, tables: CopiedTable[]): Promise<void> {
  const fresh = await new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    migrations: target.options.migrations,
  }).initialize();
  try {
    await fresh.runMigrations({ transaction: 'all' });
    const held: string[] = [];
    for (const table of tables) {
      const rows = await countRows(target.manager, target, table.name);
      if (rows > (await countRows(fresh.manager, fresh, table.name))) {
        held.push(`${table.name}: ${rows}`);
      }
    }
    if (held.length > 0) {
      throw new DatabaseCopyError(
        `The target already holds data (rows in ${held.join(', ')}): copy into a new, empty database`,
      );
    }
  } finally {
    await fresh.destroy();
  }
}

async function countRows(manager: EntityManager, dataSource: DataSource, table: string) {
  const [row] = await manager.query<{ n: number | string }[]>(
    `SELECT COUNT(*) AS n FROM ${quote(dataSource, table)}`,
  );
  return Number(row.n);
}

/** The rows of one table, in primary-key order, a batch at a time (keyset pagination). */
async function copyTable(
  source: DataSource,
  target: DataSource,
  reader: EntityManager,
  writer: EntityManager,
  table: CopiedTable,
): Promise<number> {
  const columns = table.columns.map((column) => quote(source, column)).join(', ');
  const key = table.primaryKey.map((column) => quote(source, column)).join(', ');
  const keyAt = table.primaryKey.map((column) => table.columns.indexOf(column));
  const batch = Math.max(
    1,
    Math.min(ROWS_PER_BATCH, Math.floor(VALUES_PER_STATEMENT / table.columns.length)),
  );
  const select = `SELECT ${columns} FROM ${quote(source, table.name)}`;
  const insert = `INSERT INTO ${quote(target, table.name)} (${table.columns.map((column) => quote(target, column)).join(', ')}) VALUES `;
  const placeholders = `(${table.columns.map(() => '?').join(', ')})`;
  let after: unknown[] | null = null;
  let copied = 0;
  for (;;) {
    const rows: Record<string, unknown>[] = await reader.query(
      after === null
        ? `${select} ORDER BY ${key} LIMIT ${batch}`
        : `${select} WHERE (${key}) > (${after.map(() => '?').join(', ')}) ORDER BY ${key} LIMIT ${batch}`,
      after ?? [],
    );
    if (rows.length === 0) return copied;
    const values: unknown[][] = rows.map((row) => table.columns.map((column) => row[column]));
    await writer.query(
      insert + values.map(() => placeholders).join(', '),
      values.flatMap((row) =>
        row.map((value, i) => carry(source, target, table.mapped.get(table.columns[i]), value)),
      ),
    );
    copied += rows.length;
    after = keyAt.map((i) => values[values.length - 1][i]);
  }
}

function carry(
  source: DataSource,
  target: DataSource,
  column: ColumnMetadata | undefined,
  value: unknown,
): unknown {
  if (column === undefined || value === null) return value;
  return target.driver.preparePersistentValue(
    source.driver.prepareHydratedValue(value, column),
    column,
  ) as unknown;
}

/** The next id of each copied table with an auto-increment counter, as the source would give. */
async function nextIds(
  source: DataSource,
  reader: EntityManager,
  tables: CopiedTable[],
): Promise<Map<string, number>> {
  const copied = new Set(tables.map((table) => table.name));
  const rows = await reader.query<{ name: string; next: number | string }[]>(
    source.options.type === 'mysql'
      ? `SELECT TABLE_NAME AS name, AUTO_INCREMENT AS next FROM information_schema.TABLES
         WHERE TABLE_SCHEMA = DATABASE() AND AUTO_INCREMENT IS NOT NULL`
      : 'SELECT name, seq + 1 AS next FROM sqlite_sequence',
  );
  return new Map(
    rows
      .map((row) => [row.name, Number(row.next)] as const)
      .filter(([name, next]) => copied.has(name) && next > 1),
  );
}

async function setNextIds(
  target: DataSource,
  manager: EntityManager,
  counters: Map<string, number>,
): Promise<void> {
  for (const [table, next] of counters) {
    if (target.options.type === 'mysql') {
      await manager.query(`ALTER TABLE ${quote(target, table)} AUTO_INCREMENT = ${next}`);
    } else {
      await manager.query('DELETE FROM sqlite_sequence WHERE name = ?', [table]);
      await manager.query('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)', [
        table,
        next - 1,
      ]);
    }
  }
}

function quote(dataSource: DataSource, name: string): string {
  return dataSource.driver.escape(name);
}
