import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

/**
 * Revisions of entry writes: a counter per user and media type, and the revision of each entry's
 * last write. Existing entries take their id as revision (unique, so distinct within a user's
 * list), and each counter starts at the highest of them.
 */
export class RatingRevisions1800000000001 implements MigrationInterface {
  name = 'RatingRevisions1800000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'rating_revisions',
        columns: [
          { name: 'user_id', type: 'int', isPrimary: true },
          { name: 'media_type', type: 'varchar', length: '5', isPrimary: true },
          { name: 'revision', type: 'int' },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_rating_revisions_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
    await queryRunner.query(
      'ALTER TABLE rating_entries ADD COLUMN revision integer NOT NULL DEFAULT 0',
    );
    await queryRunner.query('UPDATE rating_entries SET revision = id');
    await queryRunner.query(
      `INSERT INTO rating_revisions (user_id, media_type, revision)
        SELECT user_id, media_type, MAX(revision) FROM rating_entries GROUP BY user_id, media_type`,
    );
    await queryRunner.createIndex(
      'rating_entries',
      new TableIndex({
        name: 'IDX_rating_entries_user_revision',
        columnNames: ['user_id', 'media_type', 'revision'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('rating_entries', 'IDX_rating_entries_user_revision');
    await queryRunner.query('ALTER TABLE rating_entries DROP COLUMN revision');
    await queryRunner.dropTable('rating_revisions');
  }
}
