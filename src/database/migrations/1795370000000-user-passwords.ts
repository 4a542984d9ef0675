import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users get an optional password (scrypt hash) for the OAuth login page. Plain `ADD COLUMN`, valid
 * on SQLite and MySQL alike: TypeORM's addColumn() rebuilds the table on SQLite, and dropping
 * `users` there would cascade into every table that references it.
 */
export class UserPasswords1795370000000 implements MigrationInterface {
  name = 'UserPasswords1795370000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE users ADD COLUMN password_hash varchar(255) NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE users DROP COLUMN password_hash');
  }
}
