import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * What the admin CLI needs to lift IP denials and reset sign-in throttles on every instance, Redis
 * or not (the counters themselves may live in one process's memory): each denial as it starts
 * (the auth module's `ip_denials`), and the time an account's sign-in throttle was reset (the
 * OAuth module's `sign_in_resets`). Times are Unix milliseconds, compared the same way on SQLite
 * and MySQL. Keys compare as bytes on MySQL too, where the default collation folds case and
 * accents.
 */
export class AbuseRecords1800000900000 implements MigrationInterface {
  name = 'AbuseRecords1800000900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type !== 'better-sqlite3';
    const key = (name: string) => ({
      name,
      type: 'varchar',
      length: '64',
      isPrimary: true,
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
    });
    await queryRunner.createTable(
      new Table({
        name: 'ip_denials',
        columns: [
          key('address'),
          { name: 'denied_at', type: 'bigint' },
          { name: 'denied_until', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'IDX_ip_denials_until', columnNames: ['denied_until'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'sign_in_resets',
        columns: [key('account'), { name: 'reset_at', type: 'bigint' }],
        indices: [new TableIndex({ name: 'IDX_sign_in_resets_at', columnNames: ['reset_at'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('sign_in_resets');
    await queryRunner.dropTable('ip_denials');
  }
}
