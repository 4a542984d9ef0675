import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

const id = {
  name: 'id',
  type: 'integer',
  isPrimary: true,
  isGenerated: true,
  generationStrategy: 'increment' as const,
};
const int = (name: string, isNullable = false) => ({ name, type: 'int', isNullable });
const smallint = (name: string) => ({ name, type: 'smallint' });
const bool = (name: string) => ({ name, type: 'boolean' });
const datetime = (name: string, isNullable = false) => ({ name, type: 'datetime', isNullable });
const varchar = (name: string, length: number, isNullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable,
});

/** Written with the QueryRunner table API so that one migration runs on SQLite and MySQL/MariaDB. */
export class InitialSchema1763830000000 implements MigrationInterface {
  name = 'InitialSchema1763830000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'mysql') {
      // Every table and column after this one inherits full Unicode and byte-exact comparison, as
      // on SQLite, whatever the database was created with. Set before any table exists: MySQL
      // cannot convert a column that a foreign key already uses.
      await queryRunner.query('ALTER DATABASE CHARACTER SET utf8mb4 COLLATE utf8mb4_bin');
    }
    await queryRunner.createTable(
      new Table({
        name: 'users',
        columns: [id, varchar('name', 64), datetime('created_at')],
        indices: [new TableIndex({ name: 'UQ_users_name', columnNames: ['name'], isUnique: true })],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'access_tokens',
        columns: [
          id,
          varchar('token_hash', 64),
          int('user_id'),
          varchar('scopes', 255),
          varchar('client_id', 64, true),
          datetime('created_at'),
          datetime('expires_at'),
          datetime('revoked_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'UQ_access_tokens_hash',
            columnNames: ['token_hash'],
            isUnique: true,
          }),
          new TableIndex({ name: 'IDX_access_tokens_user', columnNames: ['user_id'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_access_tokens_user',
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
        name: 'titles',
        columns: [
          { ...varchar('media_type', 5), isPrimary: true },
          { ...int('id'), isPrimary: true },
          int('external_id', true),
          varchar('title', 500),
          int('episodes', true),
          int('episode_minutes', true),
          int('chapters', true),
          int('volumes', true),
        ],
        indices: [
          new TableIndex({
            name: 'UQ_titles_external_id',
            columnNames: ['media_type', 'external_id'],
            isUnique: true,
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'rating_entries',
        columns: [
          id,
          int('user_id'),
          varchar('media_type', 5),
          int('title_id'),
          varchar('status', 16),
          bool('is_visible'),
          smallint('public_rating'),
          smallint('public_fraction'),
          smallint('personal_rating'),
          int('episodes_watched'),
          int('chapters_read'),
          int('volumes_read'),
          { name: 'start_date', type: 'date', isNullable: true },
          { name: 'end_date', type: 'date', isNullable: true },
          bool('is_repeating'),
          int('times_repeated'),
          smallint('repeat_desire'),
          { name: 'notes', type: 'text' },
          smallint('priority'),
          datetime('created_at'),
          datetime('updated_at'),
        ],
        indices: [
          // Serves every query of the API: one entry, a user's list in title order, the statistics.
          new TableIndex({
            name: 'UQ_rating_entries_user_title',
            columnNames: ['user_id', 'media_type', 'title_id'],
            isUnique: true,
          }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_rating_entries_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
          new TableForeignKey({
            name: 'FK_rating_entries_title',
            columnNames: ['media_type', 'title_id'],
            referencedTableName: 'titles',
            referencedColumnNames: ['media_type', 'id'],
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('rating_entries');
    await queryRunner.dropTable('titles');
    await queryRunner.dropTable('access_tokens');
    await queryRunner.dropTable('users');
  }
}
