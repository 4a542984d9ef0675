import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/** The lease that lets one instance at a time run the purges (contract §16). */
export class PurgeLeases1800000300000 implements MigrationInterface {
  name = 'PurgeLeases1800000300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'purge_leases',
        columns: [
          { name: 'name', type: 'varchar', length: '64', isPrimary: true },
          { name: 'holder', type: 'varchar', length: '64', isNullable: true },
          { name: 'expires_at', type: 'datetime' },
        ],
      }),
    );
    await queryRunner.query(
      "INSERT INTO purge_leases (name, holder, expires_at) VALUES ('purges', NULL, '1970-01-01 00:00:00')",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('purge_leases');
  }
}
