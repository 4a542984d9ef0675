import { TableColumn, type QueryRunner } from 'typeorm';

const ENTRIES = 'rating_entries';

/**
 * For the migration of a new entry field (docs/extending.md "Add a field to entries"): adds its
 * column to `rating_entries` as the entity describes it (ENTRY_COLUMNS: no default in the schema;
 * nullable when the field's default is null), the existing entries holding `value`, on SQLite
 * and MySQL/MariaDB. The column is added with `value` as its default, which is then dropped: the
 * write path always writes every column.
 */
export async function addEntryColumn(
  queryRunner: QueryRunner,
  name: string,
  type: 'varchar' | 'text' | 'boolean' | 'smallint' | 'int' | 'date',
  value: string | number | boolean | null,
  length?: number,
): Promise<void> {
  const shape = {
    name,
    type,
    isNullable: value === null,
    ...(length ? { length: String(length) } : {}),
  };
  if (value === null) {
    await queryRunner.addColumn(ENTRIES, new TableColumn(shape));
    return;
  }
  const literal = typeof value === 'string' ? `'${value.replace(/'/g, "''")}'` : Number(value);
  const withDefault = new TableColumn({ ...shape, default: literal });
  await queryRunner.addColumn(ENTRIES, withDefault);
  await queryRunner.changeColumn(ENTRIES, withDefault, new TableColumn(shape));
}

export async function dropEntryColumn(queryRunner: QueryRunner, name: string): Promise<void> {
  await queryRunner.dropColumn(ENTRIES, name);
}
