import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * `items` in batches for statements whose SQL grows with the batch (multi-row INSERT, `IN (…)`):
 * batches of `size`, then what is left in batches of decreasing powers of two (300 by 256: 256,
 * 32, 8, 4), so that a statement has at most log2(size) + 2 texts whatever the counts. Every text
 * is a statement SQLite prepares, TypeORM keeps (up to 100) and better-sqlite3 frees only when a
 * garbage collection finalizes it: batches of every length made each batch of a catalog import a
 * statement of its own (BENCHMARKS.md).
 */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`Batch size ${size}: not a count`);
  const batches: T[][] = [];
  let start = 0;
  while (items.length - start >= size) {
    batches.push(items.slice(start, (start += size)));
  }
  for (let part = 2 ** Math.floor(Math.log2(size)); part >= 1; part /= 2) {
    if (items.length - start >= part) batches.push(items.slice(start, (start += part)));
  }
  return batches;
}

/**
 * Inserts `rows` (objects with the entity's properties, the same in every row, none undefined:
 * the first row's name the columns) in multi-row INSERTs whose values are all bound. TypeORM's
 * own insert writes numbers into the SQL on SQLite, which makes every batch a new statement (see
 * inBatches).
 */
export async function insertRows<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: readonly T[],
  batchSize: number,
): Promise<void> {
  if (rows.length === 0) return;
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  const columns = metadata.columns.filter((column) => column.propertyName in rows[0]);
  const head =
    `INSERT INTO ${driver.escape(metadata.tableName)} ` +
    `(${columns.map((column) => driver.escape(column.databaseName)).join(', ')}) VALUES `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (const row of rows) {
    if (columns.some((column) => row[column.propertyName] === undefined)) {
      throw new Error(`insertRows into ${metadata.tableName}: every row has every column's value`);
    }
  }
  for (const batch of inBatches(rows, batchSize)) {
    const values = batch.flatMap((row) =>
      columns.map(
        (column): unknown =>
          driver.preparePersistentValue(column.getEntityValue(row) as unknown, column) as unknown,
      ),
    );
    await manager.query(head + Array<string>(batch.length).fill(tuple).join(', '), values);
  }
}

/** What findWhereIn and deleteWhereIn match: columns equal to values, and one column in a list. */
export interface WhereIn<T> {
  equal: Partial<T>;
  property: keyof T & string;
  values: readonly unknown[];
}

/**
 * The rows of `target` matching `where`, as objects with the entity's properties, in batches of
 * `batchSize` values, every value bound (TypeORM's `In` writes numbers into the SQL: see
 * inBatches). `orderBy` orders each batch's rows.
 */
export async function findWhereIn<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  where: WhereIn<T>,
  batchSize: number,
  orderBy: (keyof T & string)[] = [],
): Promise<T[]> {
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  const columns = metadata.columns.filter((column) => column.isSelect);
  const select = columns.map((column) => driver.escape(column.databaseName)).join(', ');
  const order = orderBy.length
    ? ` ORDER BY ${orderBy.map((property) => columnOf(manager, target, property).name).join(', ')}`
    : '';
  const found: T[] = [];
  for (const [sql, values] of whereInStatements(manager, target, where, batchSize)) {
    const rows = await manager.query<Record<string, unknown>[]>(
      `SELECT ${select} FROM ${driver.escape(metadata.tableName)} WHERE ${sql}${order}`,
      values,
    );
    for (const row of rows) {
      const entity: Record<string, unknown> = {};
      for (const column of columns) {
        entity[column.propertyName] = driver.prepareHydratedValue(row[column.databaseName], column);
      }
      found.push(entity as T);
    }
  }
  return found;
}

/**
 * Sets `fields` (an undefined one is left as it is, as TypeORM's update does) on the row of
 * `target` whose columns equal `key`, every value bound: one statement text per set of fields,
 * whatever the values.
 */
export async function updateRow<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  key: Partial<T>,
  fields: Partial<T>,
): Promise<void> {
  const set = Object.entries(fields).filter(([, value]) => value !== undefined);
  if (set.length === 0) return;
  const where = Object.entries(key);
  const columns = (entries: [string, unknown][]) =>
    entries.map(([name, value]) => ({ ...columnOf(manager, target, name), value }));
  const assigned = columns(set);
  const matched = columns(where);
  const table = manager.connection.driver.escape(manager.connection.getMetadata(target).tableName);
  await manager.query(
    `UPDATE ${table} SET ${assigned.map((column) => `${column.name} = ?`).join(', ')} ` +
      `WHERE ${matched.map((column) => `${column.name} = ?`).join(' AND ')}`,
    [...assigned, ...matched].map((column) => column.stored(column.value)),
  );
}

/** Deletes the rows of `target` matching `where`, in batches of `batchSize` values. */
export async function deleteWhereIn<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  where: WhereIn<T>,
  batchSize: number,
): Promise<void> {
  const table = manager.connection.driver.escape(manager.connection.getMetadata(target).tableName);
  for (const [sql, values] of whereInStatements(manager, target, where, batchSize)) {
    await manager.query(`DELETE FROM ${table} WHERE ${sql}`, values);
  }
}

/** The column of `property`, its escaped name, and a value as the column stores it. */
function columnOf<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  property: string,
) {
  const column = manager.connection.getMetadata(target).findColumnWithPropertyName(property);
  if (!column) throw new Error(`No column for the property ${property}`);
  const driver = manager.connection.driver;
  return {
    name: driver.escape(column.databaseName),
    stored: (value: unknown): unknown => driver.preparePersistentValue(value, column) as unknown,
  };
}

function whereInStatements<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  { equal, property, values }: WhereIn<T>,
  batchSize: number,
): [string, unknown[]][] {
  const equalColumns = Object.keys(equal).map((name) => columnOf(manager, target, name));
  const equalSql = equalColumns.map((column) => `${column.name} = ? AND `).join('');
  const equalValues = Object.keys(equal).map((name, i) => equalColumns[i].stored(equal[name]));
  const inColumn = columnOf(manager, target, property);
  return inBatches(values, batchSize).map((batch) => [
    `${equalSql}${inColumn.name} IN (${batch.map(() => '?').join(', ')})`,
    [...equalValues, ...batch.map(inColumn.stored)],
  ]);
}
