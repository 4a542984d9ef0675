import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const TABLE = 'webhook_messages';

/**
 * Every outbox message is written inside an entry write's transaction, and on SQLite each index
 * is one more page that the write's commit copies to the WAL (measured: the insert's cost in a
 * write transaction falls by about a third without these two). Both indexes go; their lookups use
 * `IDX_webhook_messages_webhook` (webhook_id, state, next_attempt_at) instead:
 * - `IDX_webhook_messages_finished` (finished_at), the purge of delivered and failed messages:
 *   a finished message's `next_attempt_at` is now its finishing time, so the purge walks that
 *   index per webhook and state (messages finished before this migration carry an earlier
 *   `next_attempt_at`, which the purge's `finished_at` condition keeps exact);
 * - `IDX_webhook_messages_user` (user_id), dropping a user's pending messages when the user is
 *   erased: it walks the pending messages of each webhook (the backlog, not the history).
 */
export class WebhookMessageLeanIndexes1800001100000 implements MigrationInterface {
  name = 'WebhookMessageLeanIndexes1800001100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(TABLE, 'IDX_webhook_messages_finished');
    await queryRunner.dropIndex(TABLE, 'IDX_webhook_messages_user');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      TABLE,
      new TableIndex({ name: 'IDX_webhook_messages_user', columnNames: ['user_id'] }),
    );
    await queryRunner.createIndex(
      TABLE,
      new TableIndex({ name: 'IDX_webhook_messages_finished', columnNames: ['finished_at'] }),
    );
  }
}
