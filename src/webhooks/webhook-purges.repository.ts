import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isSqlite, runTransaction } from '../database/transactions';
import { allWebhookIds, deleteRows, placeholders } from './webhook-sql';

/** The webhooks that are gone but have messages left in the outbox, per dialect. */
const ORPHANS_SQL = {
  // The distinct ids by a loose index scan of IDX_webhook_messages_webhook.
  mysql: `SELECT d.webhook_id FROM (SELECT DISTINCT webhook_id FROM webhook_messages) d
      WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)`,
  // SQLite reads every key for a DISTINCT: the distinct ids one index seek each instead.
  sqlite: `WITH RECURSIVE ids (webhook_id) AS (
        SELECT MIN(webhook_id) FROM webhook_messages
        UNION ALL
        SELECT (SELECT MIN(m.webhook_id) FROM webhook_messages m WHERE m.webhook_id > ids.webhook_id)
        FROM ids WHERE ids.webhook_id IS NOT NULL)
      SELECT webhook_id FROM ids WHERE webhook_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = ids.webhook_id)`,
};

/**
 * The SQL of the webhooks' purges (contract §16): the log of attempts, finished messages of the
 * outbox, and messages of deleted webhooks. Times are Unix milliseconds.
 */
@Injectable()
export class WebhookPurgesRepository {
  private readonly orphansSql: string;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.orphansSql = isSqlite(dataSource) ? ORPHANS_SQL.sqlite : ORPHANS_SQL.mysql;
  }

  /** Removes at most `limit` attempts logged before `before` (ms); says how many went. */
  purgeAttemptsBefore(before: number, limit: number): Promise<number> {
    return this.purgeBefore('webhook_attempts', 'attempted_at', before, limit);
  }

  /**
   * Removes at most `limit` messages delivered or failed before `before` (ms): a range of
   * IDX_webhook_messages_webhook per webhook and state, where a finished message's
   * next_attempt_at is its finishing time (or earlier, for those finished before migration
   * 1800001100000: the finished_at condition keeps the purge exact). Messages of deleted webhooks
   * are purgeOfDeletedWebhooks'.
   */
  purgeFinishedBefore(before: number, limit: number): Promise<number> {
    return runTransaction(this.dataSource, async (em) => {
      const webhookIds = await allWebhookIds(em);
      if (webhookIds.length === 0) return 0;
      const rows = await em.query<{ id: number }[]>(
        `SELECT id FROM webhook_messages WHERE webhook_id IN (${placeholders(webhookIds.length)})
          AND state IN ('delivered', 'failed') AND next_attempt_at < ? AND finished_at < ? LIMIT ?`,
        [...webhookIds, before, before, limit],
      );
      return deleteRows(em, 'webhook_messages', rows);
    });
  }

  /**
   * Removes at most `limit` messages of webhooks that are gone: a write that read the webhooks
   * just before a `webhooks delete` may commit some after it, and nothing delivers them.
   */
  purgeOfDeletedWebhooks(limit: number): Promise<number> {
    return runTransaction(this.dataSource, async (em) => {
      const webhookIds = (await em.query<{ webhook_id: string }[]>(this.orphansSql)).map(
        (row) => row.webhook_id,
      );
      if (webhookIds.length === 0) return 0;
      const rows = await em.query<{ id: number }[]>(
        `SELECT id FROM webhook_messages WHERE webhook_id IN (${placeholders(webhookIds.length)}) LIMIT ?`,
        [...webhookIds, limit],
      );
      return deleteRows(em, 'webhook_messages', rows);
    });
  }

  /** A select of ids then a delete by id: MySQL has no LIMIT in a DELETE with a subquery. */
  private purgeBefore(
    table: string,
    column: string,
    before: number,
    limit: number,
  ): Promise<number> {
    return runTransaction(this.dataSource, async (em) => {
      const rows = await em.query<{ id: number }[]>(
        `SELECT id FROM ${table} WHERE ${column} < ? ORDER BY ${column} LIMIT ?`,
        [before, limit],
      );
      return deleteRows(em, table, rows);
    });
  }
}
