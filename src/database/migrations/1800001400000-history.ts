import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

/** A nullable column as the entities declare it (NULLABLE, src/database/columns.ts). */
const NULLABLE = { isNullable: true, default: 'NULL' } as const;

const userForeignKey = (table: string) =>
  new TableForeignKey({
    name: `FK_${table}_user`,
    columnNames: ['user_id'],
    referencedTableName: 'users',
    referencedColumnNames: ['id'],
    onDelete: 'CASCADE',
    onUpdate: 'RESTRICT',
  });

const change = (name: string, type: 'varchar' | 'integer' | 'smallint', length?: string) => [
  { name: `${name}_from`, type, length, ...NULLABLE },
  { name: `${name}_to`, type, length, ...NULLABLE },
];

/**
 * Version 1.2 (contract §20 and its preamble): history events, viewings and the user's settings.
 * New tables only: nothing is copied from the entries, so the migration takes no long lock however
 * large the lists are. Entries written before it get their viewing when first read or written
 * (see history/viewing-rules.ts).
 */
export class History1800001400000 implements MigrationInterface {
  name = 'History1800001400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'history_events',
        columns: [
          { name: 'user_id', type: 'integer', isPrimary: true },
          { name: 'media_type', type: 'varchar', length: '5', isPrimary: true },
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'title_id', type: 'integer' },
          { name: 'at_ms', type: 'bigint' },
          { name: 'source', type: 'varchar', length: '8' },
          { name: 'client', type: 'varchar', length: '100', ...NULLABLE },
          { name: 'viewing', type: 'integer', ...NULLABLE },
          ...change('status', 'varchar', '16'),
          ...change('episodes_watched', 'integer'),
          ...change('chapters_read', 'integer'),
          ...change('volumes_read', 'integer'),
          ...change('score', 'smallint'),
        ],
        indices: [
          new TableIndex({
            name: 'IDX_history_events_title',
            columnNames: ['user_id', 'media_type', 'title_id', 'id'],
          }),
          new TableIndex({
            name: 'IDX_history_events_at',
            columnNames: ['user_id', 'media_type', 'at_ms'],
          }),
        ],
        foreignKeys: [userForeignKey('history_events')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'history_viewings',
        columns: [
          { name: 'user_id', type: 'integer', isPrimary: true },
          { name: 'media_type', type: 'varchar', length: '5', isPrimary: true },
          { name: 'title_id', type: 'integer', isPrimary: true },
          { name: 'number', type: 'integer', isPrimary: true },
          { name: 'state', type: 'varchar', length: '9' },
          { name: 'started_at', type: 'varchar', length: '24' },
          { name: 'finished_at', type: 'varchar', length: '24', ...NULLABLE },
          { name: 'closed_at_ms', type: 'bigint', ...NULLABLE },
          { name: 'score', type: 'smallint', ...NULLABLE },
          { name: 'progress', type: 'integer' },
        ],
        foreignKeys: [userForeignKey('history_viewings')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'user_settings',
        columns: [
          { name: 'user_id', type: 'integer', isPrimary: true },
          { name: 'time_zone', type: 'varchar', length: '64' },
          { name: 'card', type: 'boolean' },
        ],
        foreignKeys: [userForeignKey('user_settings')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('user_settings');
    await queryRunner.dropTable('history_viewings');
    await queryRunner.dropTable('history_events');
  }
}
