import { MigrationInterface, QueryRunner, Table, TableColumn, TableForeignKey } from 'typeorm';

/** A nullable column as the entities declare it (NULLABLE, src/database/columns.ts). */
const NULLABLE_COLUMNS: { table: string; name: string; type: string; length?: string }[] = [
  { table: 'titles', name: 'year', type: 'int' },
  { table: 'titles', name: 'season', type: 'varchar', length: '6' },
  { table: 'titles', name: 'format', type: 'varchar', length: '8' },
  { table: 'history_events', name: 'restarted', type: 'boolean' },
];

/** The binary NO PAD collation of utf8mb4: its name differs between MariaDB and MySQL 8. */
async function noPadBinaryCollation(queryRunner: QueryRunner): Promise<string> {
  const [row] = (await queryRunner.query('SELECT VERSION() AS version')) as { version: string }[];
  return /mariadb/i.test(row.version) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}

/**
 * Version 1.2, contract §22: the catalog's facts (year, season, format on `titles`; tags in
 * `title_tags`, one row per tag) and, on history events, whether the write restarted progress by
 * opening a viewing through a rewatch (null on the events recorded before: none did). Only new
 * nullable columns and a new table: SQLite adds the columns in place (ADD COLUMN, no table copy),
 * so no long lock however large the tables are.
 */
export class Statistics1800001600000 implements MigrationInterface {
  name = 'Statistics1800001600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const binaryCollation = mysql ? await noPadBinaryCollation(queryRunner) : null;
    for (const { table, name, type, length } of NULLABLE_COLUMNS) {
      if (mysql) {
        await queryRunner.addColumn(
          table,
          new TableColumn({ name, type, length, isNullable: true, default: 'NULL' }),
        );
      } else {
        const sqlType = type === 'int' ? 'integer' : length ? `${type}(${length})` : type;
        await queryRunner.query(
          `ALTER TABLE "${table}" ADD COLUMN "${name}" ${sqlType} DEFAULT NULL`,
        );
      }
    }
    await queryRunner.createTable(
      new Table({
        name: 'title_tags',
        columns: [
          { name: 'media_type', type: 'varchar', length: '5', isPrimary: true },
          { name: 'title_id', type: 'integer', isPrimary: true },
          { name: 'position', type: 'smallint', isPrimary: true },
          {
            name: 'tag',
            type: 'varchar',
            length: '64',
            // Code point by code point, trailing spaces included (SQLite's BINARY already is).
            ...(binaryCollation ? { charset: 'utf8mb4', collation: binaryCollation } : {}),
          },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_title_tags_title',
            columnNames: ['media_type', 'title_id'],
            referencedTableName: 'titles',
            referencedColumnNames: ['media_type', 'id'],
            onDelete: 'CASCADE',
            onUpdate: 'RESTRICT',
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('title_tags');
    for (const { table, name } of [...NULLABLE_COLUMNS].reverse()) {
      await queryRunner.dropColumn(table, name);
    }
  }
}
