import { TableColumn, type QueryRunner, type TableForeignKey } from 'typeorm';

/**
 * For the migration of a media type whose name is longer than the `media_type` columns (README
 * "Add a third media type"): gives every table's `media_type` column the new length, on SQLite and
 * on MySQL/MariaDB. MySQL refuses to change a column a foreign key uses (rating_entries' key to
 * titles is on media_type and id), so those keys are dropped first and made again after; SQLite
 * copies each table (TypeORM runs migrations there with foreign keys off).
 */
export async function widenMediaTypeColumns(
  queryRunner: QueryRunner,
  length: number,
): Promise<void> {
  const tables = (await queryRunner.getTables(await tableNames(queryRunner))).filter((table) =>
    table.findColumnByName('media_type'),
  );
  const mysql = queryRunner.connection.options.type === 'mysql';
  const keys: { tableName: string; key: TableForeignKey }[] = [];
  if (mysql) {
    for (const table of tables) {
      for (const key of table.foreignKeys) {
        if (![...key.columnNames, ...key.referencedColumnNames].includes('media_type')) continue;
        keys.push({ tableName: table.name, key: key.clone() });
        await queryRunner.dropForeignKey(table, key);
      }
    }
  }
  for (const table of tables) {
    if (mysql) {
      // MODIFY keeps the column in its primary key (TypeORM's changeColumn would drop the key,
      // which the foreign keys on its other columns need).
      await queryRunner.query(
        `ALTER TABLE \`${table.name}\` MODIFY \`media_type\` varchar(${length}) NOT NULL`,
      );
      continue;
    }
    // TypeORM copies the table, which starts its AUTOINCREMENT counter again at the highest id:
    // the counter is put back, so that ids of deleted rows are not given again.
    const counter = (await queryRunner.query('SELECT seq FROM sqlite_sequence WHERE name = ?', [
      table.name,
    ])) as { seq: number }[];
    const column = table.findColumnByName('media_type')!;
    const widened = new TableColumn({ ...column, length: String(length) });
    await queryRunner.changeColumn(table.name, column, widened);
    if (counter.length > 0) {
      await queryRunner.query('UPDATE sqlite_sequence SET seq = ? WHERE name = ?', [
        counter[0].seq,
        table.name,
      ]);
    }
  }
  for (const { tableName, key } of keys) await queryRunner.createForeignKey(tableName, key);
}

async function tableNames(queryRunner: QueryRunner): Promise<string[]> {
  const rows = (
    queryRunner.connection.options.type === 'mysql'
      ? await queryRunner.query(
          'SELECT TABLE_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND COLUMN_NAME = ?',
          ['media_type'],
        )
      : await queryRunner.query(
          "SELECT m.name AS name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'media_type'",
        )
  ) as { name: string }[];
  return rows.map(({ name }) => name);
}
