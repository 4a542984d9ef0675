import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter per user and media type that catalog imports move when they change a title the list
 * holds: with the list's revision, it stands for GET all's body (contract §10). Plain ADD COLUMN,
 * valid on SQLite and MySQL alike.
 */
export class CatalogVersions1800000700001 implements MigrationInterface {
  name = 'CatalogVersions1800000700001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE rating_revisions ADD COLUMN catalog_version integer NOT NULL DEFAULT 0',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE rating_revisions DROP COLUMN catalog_version');
  }
}
