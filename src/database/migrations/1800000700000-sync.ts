import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

/**
 * Incremental sync (contract §12): the deletions kept for the changes feed, one row per user,
 * media type and title (the latest deletion), and the key that signs sync cursors, shared by
 * every instance through the database.
 */
export class Sync1800000700000 implements MigrationInterface {
  name = 'Sync1800000700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'sync_deletions',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'user_id', type: 'int' },
          { name: 'media_type', type: 'varchar', length: '5' },
          { name: 'title_id', type: 'int' },
          { name: 'revision', type: 'int' },
          { name: 'deleted_at', type: 'datetime' },
        ],
        indices: [
          new TableIndex({
            name: 'UQ_sync_deletions_user_title',
            columnNames: ['user_id', 'media_type', 'title_id'],
            isUnique: true,
          }),
          new TableIndex({
            name: 'IDX_sync_deletions_user_revision',
            columnNames: ['user_id', 'media_type', 'revision'],
          }),
          new TableIndex({ name: 'IDX_sync_deletions_deleted_at', columnNames: ['deleted_at'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_sync_deletions_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'sync_keys',
        columns: [
          { name: 'id', type: 'int', isPrimary: true },
          { name: 'secret', type: 'varchar', length: '64' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('sync_keys');
    await queryRunner.dropTable('sync_deletions');
  }
}
