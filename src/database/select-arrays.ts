import type { Database, Statement } from 'better-sqlite3';
import type { DataSource } from 'typeorm';

const statements = new WeakMap<Database, Map<string, Statement>>();

/**
 * Rows as arrays of values, in select order. On better-sqlite3 this uses raw mode: building a
 * JS object per row, key by key, costs more than twice the query itself on lists of 10,000 rows
 * (measured: 130 ms against 58 ms), and TypeORM offers no way to ask for arrays.
 */
export async function selectArrays(
  dataSource: DataSource,
  sql: string,
  parameters: unknown[],
): Promise<unknown[][]> {
  if (dataSource.options.type === 'better-sqlite3') {
    const database = (dataSource.driver as unknown as { databaseConnection: Database })
      .databaseConnection;
    let cache = statements.get(database);
    if (!cache) statements.set(database, (cache = new Map<string, Statement>()));
    let statement = cache.get(sql);
    if (!statement) cache.set(sql, (statement = database.prepare(sql).raw(true)));
    return statement.all(...parameters) as unknown[][];
  }
  const rows = await dataSource.query<Record<string, unknown>[]>(sql, parameters);
  return rows.map((row) => Object.values(row));
}
