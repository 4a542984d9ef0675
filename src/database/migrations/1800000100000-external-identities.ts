import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

const varchar = (name: string, isPrimary = false) => ({
  name,
  type: 'varchar',
  length: '255',
  isPrimary,
});

/**
 * Users of the company's identity provider (contract §19): the (iss, sub) pair of each, the time
 * before which its JWTs are revoked, and the pairs whose user was deleted. QueryRunner table API,
 * so that one migration runs on SQLite and MySQL/MariaDB.
 */
export class ExternalIdentities1800000100000 implements MigrationInterface {
  name = 'ExternalIdentities1800000100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'external_identities',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          varchar('issuer'),
          varchar('subject'),
          { name: 'user_id', type: 'int' },
          { name: 'created_at', type: 'datetime' },
          { name: 'tokens_revoked_before', type: 'datetime', isNullable: true },
        ],
        indices: [
          new TableIndex({
            name: 'UQ_external_identities_pair',
            columnNames: ['issuer', 'subject'],
            isUnique: true,
          }),
          new TableIndex({ name: 'IDX_external_identities_user', columnNames: ['user_id'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_external_identities_user',
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
        name: 'blocked_external_identities',
        columns: [
          varchar('issuer', true),
          varchar('subject', true),
          { name: 'blocked_at', type: 'datetime' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('blocked_external_identities');
    await queryRunner.dropTable('external_identities');
  }
}
