import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Outbound webhooks (contract §15): the endpoints, the outbox (one message per event and webhook,
 * written in the transaction of the entry write) and the log of delivery attempts. Times of the
 * outbox and the log are Unix milliseconds, compared in SQL the same way on SQLite and MySQL.
 * No foreign keys to `webhooks`: a key check would share-lock the webhook's row in every entry
 * write, and the delivery workers lock that row to claim messages.
 */
export class Webhooks1800000600000 implements MigrationInterface {
  name = 'Webhooks1800000600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type !== 'better-sqlite3';
    const id = {
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment' as const,
    };
    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'url', type: 'varchar', length: '2048' },
          { name: 'events', type: 'varchar', length: '64' },
          { name: 'secret', type: 'varchar', length: '64' },
          { name: 'created_at', type: 'datetime' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_messages',
        columns: [
          id,
          { name: 'event_id', type: 'varchar', length: '40' },
          { name: 'webhook_id', type: 'varchar', length: '36' },
          { name: 'event_type', type: 'varchar', length: '16' },
          { name: 'user_id', type: 'int' },
          // Notes of up to the body limit, escaped in JSON, can pass TEXT's 64 KiB on MySQL.
          { name: 'body', type: mysql ? 'mediumtext' : 'text' },
          { name: 'state', type: 'varchar', length: '10' },
          { name: 'attempts', type: 'int', default: 0 },
          { name: 'next_attempt_at', type: 'bigint' },
          { name: 'lease_until', type: 'bigint', default: 0 },
          { name: 'leased_by', type: 'varchar', length: '36', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'finished_at', type: 'bigint', isNullable: true },
        ],
        indices: [
          new TableIndex({
            name: 'IDX_webhook_messages_due',
            columnNames: ['state', 'next_attempt_at'],
          }),
          new TableIndex({
            name: 'IDX_webhook_messages_webhook',
            columnNames: ['webhook_id', 'state', 'next_attempt_at'],
          }),
          new TableIndex({
            name: 'IDX_webhook_messages_user',
            columnNames: ['user_id', 'state'],
          }),
          new TableIndex({
            name: 'IDX_webhook_messages_finished',
            columnNames: ['finished_at'],
          }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_attempts',
        columns: [
          id,
          { name: 'webhook_id', type: 'varchar', length: '36' },
          { name: 'event_id', type: 'varchar', length: '40' },
          { name: 'event_type', type: 'varchar', length: '16' },
          { name: 'attempted_at', type: 'bigint' },
          { name: 'status', type: 'int', isNullable: true },
          { name: 'error', type: 'varchar', length: '255', isNullable: true },
          { name: 'outcome', type: 'varchar', length: '10' },
        ],
        indices: [
          new TableIndex({
            name: 'IDX_webhook_attempts_webhook',
            columnNames: ['webhook_id', 'id'],
          }),
          new TableIndex({ name: 'IDX_webhook_attempts_at', columnNames: ['attempted_at'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_attempts');
    await queryRunner.dropTable('webhook_messages');
    await queryRunner.dropTable('webhooks');
  }
}
