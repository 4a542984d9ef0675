import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter per user and media type that moves only when a write or a catalog update changes what
 * other users see of the list (contract §18): the public list's and public profile's version,
 * apart from the owner's. Plain ADD COLUMN, valid on SQLite and MySQL alike.
 */
export class PublicVersions1800000800000 implements MigrationInterface {
  name = 'PublicVersions1800000800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE rating_revisions ADD COLUMN public_version integer NOT NULL DEFAULT 0',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE rating_revisions DROP COLUMN public_version');
  }
}
