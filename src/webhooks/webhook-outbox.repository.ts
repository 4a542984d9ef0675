import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isSqlite } from '../database/transactions';
import type { WebhookEventType } from './webhook-events';
import { MESSAGES_BY_ID, allWebhookIds, placeholders } from './webhook-sql';

export interface Subscriber {
  id: string;
  events: string[];
}

/** Ids per DELETE when a user's pending messages are dropped. */
const ERASURE_BATCH = 1000;
const SUBSCRIBERS_SQL = 'SELECT id, events FROM webhooks';
const INSERT_MESSAGE_COLUMNS =
  '(event_id, webhook_id, event_type, user_id, body, state, attempts, next_attempt_at, lease_until, created_at)';

/**
 * The SQL of the outbox's write path, run inside the entry write's transaction (the caller's
 * `em`): the webhooks subscribed, a message per webhook for an event, the erasure of a user's
 * pending messages. Times in the outbox are Unix milliseconds.
 */
@Injectable()
export class WebhookOutboxRepository {
  private readonly messagesById: string;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.messagesById = isSqlite(dataSource) ? MESSAGES_BY_ID.sqlite : MESSAGES_BY_ID.mysql;
  }

  async subscribers(em: EntityManager): Promise<Subscriber[]> {
    const rows = await em.query<{ id: string; events: string }[]>(SUBSCRIBERS_SQL);
    return rows.map((row) => ({ id: row.id, events: row.events.split(',') }));
  }

  /** One message per webhook for the event, due at once. */
  async enqueue(
    em: EntityManager,
    event: { id: string; type: WebhookEventType; userId: number; body: string },
    webhookIds: string[],
    now: number,
  ): Promise<void> {
    const values = webhookIds.map(() => "(?, ?, ?, ?, ?, 'pending', 0, ?, 0, ?)").join(', ');
    const parameters = webhookIds.flatMap((webhookId) => [
      event.id,
      webhookId,
      event.type,
      event.userId,
      event.body,
      now,
      now,
    ]);
    await em.query(
      `INSERT INTO webhook_messages ${INSERT_MESSAGE_COLUMNS} VALUES ${values}`,
      parameters,
    );
  }

  /**
   * Drops the user's messages not yet delivered or failed, in the caller's transaction: a walk of
   * each webhook's pending messages in IDX_webhook_messages_webhook (no index on user_id, which
   * every outbox insert would pay for), then a delete by id. A DELETE walking that range would,
   * on MySQL/MariaDB, lock the whole backlog and its gaps until the erasure commits, holding up
   * every other user's write that queues an event. Messages of deleted webhooks are the purge's.
   */
  async dropPendingOfUser(em: EntityManager, userId: number): Promise<void> {
    const webhookIds = await allWebhookIds(em);
    if (webhookIds.length === 0) return;
    const ids = (
      await em.query<{ id: number }[]>(
        `SELECT id FROM webhook_messages WHERE webhook_id IN (${placeholders(webhookIds.length)})
          AND state = 'pending' AND user_id = ?`,
        [...webhookIds, userId],
      )
    ).map((row) => Number(row.id));
    for (let start = 0; start < ids.length; start += ERASURE_BATCH) {
      const batch = ids.slice(start, start + ERASURE_BATCH);
      await em.query(
        `DELETE FROM ${this.messagesById} WHERE id IN (${placeholders(batch.length)})
          AND state = 'pending'`,
        batch,
      );
    }
  }
}
