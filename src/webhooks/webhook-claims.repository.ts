import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { galeraNodesOf } from '../database/galera-nodes';
import { isSqlite, runTransaction } from '../database/transactions';
import type { WebhookEventType } from './webhook-events';
import { placeholders } from './webhook-sql';

/** A message of the outbox: one event for one webhook. */
export interface OutboxMessage {
  id: number;
  eventId: string;
  eventType: WebhookEventType;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
}

export interface ClaimedWork {
  webhook: { id: string; url: string; secret: string };
  messages: OutboxMessage[];
}

/** How many due messages a claim may lease (`max` minus the webhook's running attempts), to whom. */
export interface ClaimTerms {
  max: number;
  owner: string;
  leaseUntil: number;
}

/**
 * The webhooks with due messages: a walk of the (few) webhooks, each looked up in
 * IDX_webhook_messages_webhook (webhook_id, state, next_attempt_at). A scalar subquery, not
 * EXISTS: MariaDB turns EXISTS into a semi-join that reads the whole outbox. Messages left behind
 * by a deleted webhook are not found here: the purge removes them
 * (WebhookPurgesRepository.purgeOfDeletedWebhooks).
 */
const DUE_WEBHOOKS_SQL = `SELECT w.id AS webhook_id FROM webhooks w WHERE (
  SELECT 1 FROM webhook_messages m WHERE m.webhook_id = w.id AND m.state = 'pending'
    AND m.next_attempt_at <= ? AND m.lease_until <= ? LIMIT 1) IS NOT NULL`;
/**
 * The due messages of a webhook, by due time: an order IDX_webhook_messages_webhook gives (the id
 * ends each of its keys), so that neither database sorts a backlog nor walks the whole table by id.
 */
const DUE_MESSAGES_SQL = `SELECT id, event_id, event_type, body, attempts FROM webhook_messages
  WHERE webhook_id = ? AND state = 'pending' AND next_attempt_at <= ? AND lease_until <= ?
  ORDER BY next_attempt_at, id LIMIT ?`;
/**
 * The running attempts of a webhook: leased messages, whose next_attempt_at is their lease's end,
 * so that the count reads the range of IDX_webhook_messages_webhook after now (leases and retries
 * not yet due), not the whole backlog.
 */
const IN_FLIGHT_SQL = `SELECT COUNT(*) AS n FROM webhook_messages
  WHERE webhook_id = ? AND state = 'pending' AND next_attempt_at > ? AND lease_until > ?`;
/**
 * Galera (contract §23): row locks and SKIP LOCKED are node-local, so two nodes could each count
 * the running attempts and lease up to the cap. Every claim of a webhook also rewrites one
 * replicated row of its own (in purge_leases, the service's table of leases): of two claims of one
 * webhook committed on two nodes, certification aborts one, which runs again and counts anew.
 */
const CLAIM_MARK_SQL = `INSERT INTO purge_leases (name, holder, expires_at)
  VALUES (CONCAT('webhook-claims:', ?), UUID(), NOW())
  ON DUPLICATE KEY UPDATE holder = UUID(), expires_at = NOW()`;

const RELEASE_SQL = `UPDATE webhook_messages SET lease_until = 0, leased_by = NULL, next_attempt_at = ?
  WHERE id = ? AND event_id = ? AND leased_by = ?`;

/**
 * The claim per dialect. SQLite runs one writer at a time anyway: no locking clauses, and the
 * count of running attempts comes with the webhook's row. MySQL/MariaDB counts in a statement of
 * its own, after the webhook's row is locked.
 */
const CLAIM_SQL = {
  mysql: {
    webhook: 'SELECT id, url, secret FROM webhooks WHERE id = ? FOR UPDATE SKIP LOCKED',
    countsInFlight: false,
    messages: `${DUE_MESSAGES_SQL} FOR UPDATE SKIP LOCKED`,
  },
  sqlite: {
    webhook: `SELECT id, url, secret, (SELECT COUNT(*) FROM webhook_messages
      WHERE webhook_id = webhooks.id AND state = 'pending' AND next_attempt_at > ?
        AND lease_until > ?) AS in_flight
      FROM webhooks WHERE id = ?`,
    countsInFlight: true,
    messages: DUE_MESSAGES_SQL,
  },
};

/**
 * The SQL of the delivery worker's leases on the outbox: which webhooks have due messages, the
 * claim of a webhook's due messages, a message given back. Times are Unix milliseconds.
 */
@Injectable()
export class WebhookClaimsRepository {
  private readonly claimSql: (typeof CLAIM_SQL)['mysql'];
  private readonly galera: boolean;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.claimSql = isSqlite(dataSource) ? CLAIM_SQL.sqlite : CLAIM_SQL.mysql;
    this.galera = galeraNodesOf(dataSource.options) !== undefined;
  }

  async dueWebhookIds(now: number): Promise<string[]> {
    const rows = await this.dataSource.query<{ webhook_id: string }[]>(DUE_WEBHOOKS_SQL, [
      now,
      now,
    ]);
    return rows.map((row) => row.webhook_id);
  }

  /**
   * Leases up to `max` minus the attempts already running (on any instance) of the webhook's due
   * messages, earliest due first, to `owner` until `leaseUntil`. On MySQL/MariaDB the webhook's
   * row is locked (SKIP LOCKED: an instance claiming for it already makes this one pass), so that
   * the count of running attempts and the new leases are one step. A leased message is due again
   * when its lease runs out (its owner died): its next_attempt_at is the lease's end.
   *
   * Written by hand: the queue libraries for Node need Redis or PostgreSQL, and the service must
   * run on an embedded SQLite file and on MySQL/MariaDB.
   */
  claim(
    webhookId: string,
    now: number,
    max: number,
    owner: string,
    leaseUntil: number,
  ): Promise<ClaimedWork | null> {
    return runTransaction(this.dataSource, (em) =>
      this.claimIn(em, webhookId, now, { max, owner, leaseUntil }, { dropOrphans: true }),
    );
  }

  /**
   * `claim` in the caller's transaction (a recording's claim of the next messages, which passes
   * `dropOrphans: false`); with `dropOrphans`, the messages of a webhook found deleted go.
   */
  async claimIn(
    em: EntityManager,
    webhookId: string,
    now: number,
    { max, owner, leaseUntil }: ClaimTerms,
    { dropOrphans }: { dropOrphans: boolean },
  ): Promise<ClaimedWork | null> {
    const [row] = await em.query<(ClaimedWork['webhook'] & { in_flight?: number | string })[]>(
      this.claimSql.webhook,
      this.claimSql.countsInFlight ? [now, now, webhookId] : [webhookId],
    );
    if (!row) {
      // Deleted (its messages go with it; a write that read it just before may leave some) or
      // being claimed by another instance right now.
      if (!dropOrphans) return null;
      const exists = await em.query<unknown[]>('SELECT 1 FROM webhooks WHERE id = ?', [webhookId]);
      if (exists.length === 0) {
        await em.query('DELETE FROM webhook_messages WHERE webhook_id = ?', [webhookId]);
      }
      return null;
    }
    const webhook = { id: row.id, url: row.url, secret: row.secret };
    if (this.galera) await em.query(CLAIM_MARK_SQL, [webhookId]);
    const inFlight =
      row.in_flight ??
      (await em.query<{ n: number | string }[]>(IN_FLIGHT_SQL, [webhookId, now, now]))[0].n;
    const room = max - Number(inFlight);
    if (room <= 0) return { webhook, messages: [] };
    const rows = await em.query<
      {
        id: number;
        event_id: string;
        event_type: WebhookEventType;
        body: string;
        attempts: number;
      }[]
    >(this.claimSql.messages, [webhookId, now, now, room]);
    if (rows.length === 0) return { webhook, messages: [] };
    const ids = rows.map((row) => Number(row.id));
    await em.query(
      `UPDATE webhook_messages SET lease_until = ?, next_attempt_at = ?, leased_by = ?
        WHERE id IN (${placeholders(ids.length)})`,
      [leaseUntil, leaseUntil, owner, ...ids],
    );
    return {
      webhook,
      messages: rows.map((row) => ({
        id: Number(row.id),
        eventId: row.event_id,
        eventType: row.event_type,
        body: row.body,
        attempts: Number(row.attempts),
      })),
    };
  }

  /** Gives a message back (an attempt cut short by shutdown): due again at once, for anyone. */
  release(message: Pick<OutboxMessage, 'id' | 'eventId'>, owner: string): Promise<void> {
    return runTransaction(this.dataSource, async (em) => {
      await em.query(RELEASE_SQL, [Date.now(), message.id, message.eventId, owner]);
    });
  }
}
