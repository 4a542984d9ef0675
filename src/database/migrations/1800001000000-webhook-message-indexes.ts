import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const TABLE = 'webhook_messages';

/**
 * Fewer index entries to rewrite when a message is delivered or fails (a state change was four:
 * three indexes held `state`, one `finished_at`; it is now two):
 * - `IDX_webhook_messages_due` (state, next_attempt_at) goes: the webhooks with due messages are
 *   found by walking `webhooks` and looking each up in `IDX_webhook_messages_webhook`
 *   (webhook_id, state, next_attempt_at), which the claim uses anyway;
 * - `IDX_webhook_messages_user` (user_id, state) becomes (user_id): a user's messages, dropped with
 *   the user, are few, and `user_id` never changes, so a state change no longer touches it.
 * `IDX_webhook_messages_finished` (the purge) stays.
 */
export class WebhookMessageIndexes1800001000000 implements MigrationInterface {
  name = 'WebhookMessageIndexes1800001000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(TABLE, 'IDX_webhook_messages_due');
    await queryRunner.dropIndex(TABLE, 'IDX_webhook_messages_user');
    await queryRunner.createIndex(
      TABLE,
      new TableIndex({ name: 'IDX_webhook_messages_user', columnNames: ['user_id'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(TABLE, 'IDX_webhook_messages_user');
    await queryRunner.createIndex(
      TABLE,
      new TableIndex({ name: 'IDX_webhook_messages_user', columnNames: ['user_id', 'state'] }),
    );
    await queryRunner.createIndex(
      TABLE,
      new TableIndex({
        name: 'IDX_webhook_messages_due',
        columnNames: ['state', 'next_attempt_at'],
      }),
    );
  }
}
