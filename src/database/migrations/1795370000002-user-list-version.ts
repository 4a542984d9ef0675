import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter bumped by every change to a user's list (and by catalog imports), so that derived
 * values such as the profile statistics can be cached exactly across instances. Plain ADD COLUMN,
 * valid on SQLite and MySQL alike.
 */
export class UserListVersion1795370000002 implements MigrationInterface {
  name = 'UserListVersion1795370000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE users ADD COLUMN list_version integer NOT NULL DEFAULT 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE users DROP COLUMN list_version');
  }
}
