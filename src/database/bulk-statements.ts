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
 * the first row's name the columns) in multi-row INSERTs whose values are all bound. TypeORM's own insert writes numbers
 * into the SQL on SQLite, which makes every batch a new statement (see inBatches).
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
    ? ` ORDER BY ${orderBy.map((property) => columnName(manager, target, property)).join(', ')}`
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
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  fields = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
  if (Object.keys(fields).length === 0) return;
  const assignments = Object.keys(fields).map((name) => `${columnName(manager, target, name)} = ?`);
  const conditions = Object.keys(key).map((name) => `${columnName(manager, target, name)} = ?`);
  const prepared = (values: Partial<T>) =>
    Object.entries(values).map(
      ([name, value]): unknown =>
        driver.preparePersistentValue(value, metadata.findColumnWithPropertyName(name)!) as unknown,
    );
  await manager.query(
    `UPDATE ${driver.escape(metadata.tableName)} SET ${assignments.join(', ')} WHERE ${conditions.join(' AND ')}`,
    [...prepared(fields), ...prepared(key)],
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

function columnName<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  property: string,
): string {
  const column = manager.connection.getMetadata(target).findColumnWithPropertyName(property);
  if (!column) throw new Error(`No column for the property ${property}`);
  return manager.connection.driver.escape(column.databaseName);
}

function whereInStatements<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  { equal, property, values }: WhereIn<T>,
  batchSize: number,
): [string, unknown[]][] {
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  const prepared = (name: string, value: unknown): unknown =>
    driver.preparePersistentValue(value, metadata.findColumnWithPropertyName(name)!) as unknown;
  const equalNames = Object.keys(equal);
  const equalSql = equalNames.map((name) => `${columnName(manager, target, name)} = ? AND `);
  const equalValues = equalNames.map((name) => prepared(name, equal[name]));
  return inBatches(values, batchSize).map((batch) => [
    `${equalSql.join('')}${columnName(manager, target, property)} IN (${batch.map(() => '?').join(', ')})`,
    [...equalValues, ...batch.map((value) => prepared(property, value))],
  ]);
}
