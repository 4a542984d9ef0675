import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isSqlite, runTransaction } from '../database/transactions';
import type { WebhookEventType } from './webhook-events';
import { Webhook } from './webhook.entity';

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

export type AttemptOutcome = 'delivered' | 'retrying' | 'failed';

/** One attempt, as the log keeps it. */
export interface AttemptRecord {
  eventId: string;
  eventType: WebhookEventType;
  attemptedAt: number;
  status: number | null;
  error: string | null;
  outcome: AttemptOutcome;
}

/** An attempt that ended, to be recorded: `nextAttemptAt` (ms) when it is retried. */
export interface FinishedAttempt {
  webhookId: string;
  message: OutboxMessage;
  attempt: AttemptRecord;
  nextAttemptAt: number | null;
}

/** Ids per DELETE when a user's pending messages are dropped. */
const ERASURE_BATCH = 1000;
const SUBSCRIBERS_SQL = 'SELECT id, events FROM webhooks';
const INSERT_MESSAGE_COLUMNS =
  '(event_id, webhook_id, event_type, user_id, body, state, attempts, next_attempt_at, lease_until, created_at)';
/**
 * The webhooks with due messages: a walk of the (few) webhooks, each looked up in
 * IDX_webhook_messages_webhook (webhook_id, state, next_attempt_at). A scalar subquery, not
 * EXISTS: MariaDB turns EXISTS into a semi-join that reads the whole outbox. Messages left behind
 * by a deleted webhook are not found here: the purge removes them (`orphans` below).
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
const RELEASE_SQL = `UPDATE webhook_messages SET lease_until = 0, leased_by = NULL, next_attempt_at = ?
  WHERE id = ? AND event_id = ? AND leased_by = ?`;
const RETRY_SQL = `UPDATE webhook_messages SET attempts = ?, next_attempt_at = ?, lease_until = 0,
  leased_by = NULL WHERE id = ? AND state = 'pending'`;
const INSERT_ATTEMPTS_SQL = `INSERT INTO webhook_attempts
  (webhook_id, event_id, event_type, attempted_at, status, error, outcome) VALUES`;
const ATTEMPTS_SQL = `SELECT event_id, event_type, attempted_at, status, error, outcome
  FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`;

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
    lock: ' FOR UPDATE',
    messagesById: 'webhook_messages',
    // The distinct ids by a loose index scan of IDX_webhook_messages_webhook.
    orphans: `SELECT d.webhook_id FROM (SELECT DISTINCT webhook_id FROM webhook_messages) d
      WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)`,
  },
  sqlite: {
    webhook: `SELECT id, url, secret, (SELECT COUNT(*) FROM webhook_messages
      WHERE webhook_id = webhooks.id AND state = 'pending' AND next_attempt_at > ?
        AND lease_until > ?) AS in_flight
      FROM webhooks WHERE id = ?`,
    countsInFlight: true,
    messages: DUE_MESSAGES_SQL,
    lock: '',
    // Without stats SQLite may rather scan an index than look ids up.
    messagesById: 'webhook_messages NOT INDEXED',
    // SQLite reads every key for a DISTINCT: the distinct ids one index seek each instead.
    orphans: `WITH RECURSIVE ids (webhook_id) AS (
        SELECT MIN(webhook_id) FROM webhook_messages
        UNION ALL
        SELECT (SELECT MIN(m.webhook_id) FROM webhook_messages m WHERE m.webhook_id > ids.webhook_id)
        FROM ids WHERE ids.webhook_id IS NOT NULL)
      SELECT webhook_id FROM ids WHERE webhook_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = ids.webhook_id)`,
  },
};

/**
 * The SQL of the webhooks module: its endpoints, its outbox and its log of attempts. Times in the
 * outbox and the log are Unix milliseconds.
 */
@Injectable()
export class WebhooksRepository {
  private readonly claimSql: (typeof CLAIM_SQL)['mysql'];

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.claimSql = isSqlite(dataSource) ? CLAIM_SQL.sqlite : CLAIM_SQL.mysql;
  }

  // ---- the write path (inside the entry write's transaction) ----

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
    const webhookIds = await this.webhookIds(em);
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
        `DELETE FROM ${this.claimSql.messagesById} WHERE id IN (${placeholders(batch.length)})
          AND state = 'pending'`,
        batch,
      );
    }
  }

  // ---- delivery ----

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

  private async claimIn(
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

  /**
   * Records attempts that ended together, in one transaction: each message is delivered, due
   * again at its `nextAttemptAt`, or failed, and the log gets a line for each. Nothing is recorded
   * for a message that is gone (its webhook was deleted, its user erased; on SQLite its id may
   * then come again, hence the event id), nor for one whose lease ran out and another instance
   * took over: that instance's attempt decides it. With `claimNext`, and attempts of one webhook,
   * the same transaction then claims that webhook's next due messages (as `claim` does): one
   * commit, not two.
   */
  recordAttempts(
    attempts: FinishedAttempt[],
    owner: string,
    now: number,
    claimNext: Omit<ClaimTerms, 'owner'> | null,
  ): Promise<ClaimedWork[]> {
    return runTransaction(this.dataSource, async (em) => {
      await this.recordIn(em, attempts, owner, now);
      const webhookIds = new Set(attempts.map((finished) => finished.webhookId));
      // For one webhook only: on MySQL/MariaDB the transaction reads one snapshot, taken by its
      // first plain read (the first webhook's count of running attempts), so a second webhook's
      // count would miss the leases other instances made since. `claim` takes the others.
      if (!claimNext || webhookIds.size !== 1) return [];
      // A claim that fails (a lock wait timed out) must not undo the recording: the attempts
      // would be made again. A deadlock undid the whole transaction, which runs again.
      await em.query('SAVEPOINT claim_next');
      try {
        const work = await this.claimIn(
          em,
          [...webhookIds][0],
          now,
          { ...claimNext, owner },
          { dropOrphans: false },
        );
        await em.query('RELEASE SAVEPOINT claim_next');
        return work && work.messages.length > 0 ? [work] : [];
      } catch (error) {
        try {
          await em.query('ROLLBACK TO SAVEPOINT claim_next');
        } catch {
          throw error;
        }
        return [];
      }
    });
  }

  private async recordIn(
    em: EntityManager,
    attempts: FinishedAttempt[],
    owner: string,
    now: number,
  ): Promise<void> {
    const ids = attempts.map(({ message }) => message.id);
    const pending = new Map(
      (
        await em.query<{ id: number; event_id: string }[]>(this.pendingSql(ids.length), [
          ...ids,
          owner,
        ])
      ).map((row) => [Number(row.id), row.event_id]),
    );
    const logged = attempts.filter(({ message }) => pending.get(message.id) === message.eventId);
    if (logged.length === 0) return;
    // Delivered and failed messages sharing a count of attempts are finished by one statement.
    const finished = new Map<
      string,
      { outcome: AttemptOutcome; attempts: number; ids: number[] }
    >();
    for (const { message, attempt, nextAttemptAt } of logged) {
      if (attempt.outcome === 'retrying') {
        await em.query(RETRY_SQL, [message.attempts + 1, nextAttemptAt, message.id]);
        continue;
      }
      const key = `${attempt.outcome}:${message.attempts}`;
      let group = finished.get(key);
      if (!group) {
        group = { outcome: attempt.outcome, attempts: message.attempts + 1, ids: [] };
        finished.set(key, group);
      }
      group.ids.push(message.id);
    }
    // A finished message is due no more: its next_attempt_at becomes its finishing time, which
    // orders the finished messages of IDX_webhook_messages_webhook for the purge.
    for (const group of finished.values()) {
      await em.query(
        `UPDATE ${this.claimSql.messagesById} SET state = ?, attempts = ?, lease_until = 0,
          leased_by = NULL, finished_at = ?, next_attempt_at = ?
          WHERE id IN (${placeholders(group.ids.length)}) AND state = 'pending'`,
        [group.outcome, group.attempts, now, now, ...group.ids],
      );
    }
    await em.query(
      `${INSERT_ATTEMPTS_SQL} ${logged.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      logged.flatMap(({ webhookId, attempt }) => [
        webhookId,
        attempt.eventId,
        attempt.eventType,
        attempt.attemptedAt,
        attempt.status,
        attempt.error === null ? null : attempt.error.slice(0, 255),
        attempt.outcome,
      ]),
    );
  }

  /** The messages among `count` ids still pending, locked on MySQL/MariaDB until the commit. */
  private pendingSql(count: number): string {
    return `SELECT id, event_id FROM ${this.claimSql.messagesById} WHERE id IN (${placeholders(count)})
      AND state = 'pending' AND leased_by = ?${this.claimSql.lock}`;
  }

  /** Gives a message back (an attempt cut short by shutdown): due again at once, for anyone. */
  release(message: Pick<OutboxMessage, 'id' | 'eventId'>, owner: string): Promise<void> {
    return runTransaction(this.dataSource, async (em) => {
      await em.query(RELEASE_SQL, [Date.now(), message.id, message.eventId, owner]);
    });
  }

  // ---- purges (contract §16) ----

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
      const webhookIds = await this.webhookIds(em);
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
      const webhookIds = (await em.query<{ webhook_id: string }[]>(this.claimSql.orphans)).map(
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

  private async webhookIds(em: EntityManager): Promise<string[]> {
    const rows = await em.query<{ id: string }[]>('SELECT id FROM webhooks');
    return rows.map((row) => row.id);
  }

  // ---- the CLI ----

  async insertWebhook(webhook: Webhook): Promise<void> {
    await this.dataSource.getRepository(Webhook).insert(webhook);
  }

  listWebhooks(): Promise<Webhook[]> {
    return this.dataSource.getRepository(Webhook).find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  exists(id: string): Promise<boolean> {
    return this.dataSource.getRepository(Webhook).existsBy({ id });
  }

  /** Removes the webhook, its outbox and its log; false when there was no such webhook. */
  deleteWebhook(id: string): Promise<boolean> {
    return runTransaction(this.dataSource, async (em) => {
      const result = await em.delete(Webhook, { id });
      if (!result.affected) return false;
      await em.query('DELETE FROM webhook_messages WHERE webhook_id = ?', [id]);
      await em.query('DELETE FROM webhook_attempts WHERE webhook_id = ?', [id]);
      return true;
    });
  }

  async attempts(webhookId: string, limit: number): Promise<AttemptRecord[]> {
    const rows = await this.dataSource.query<
      {
        event_id: string;
        event_type: WebhookEventType;
        attempted_at: number | string;
        status: number | null;
        error: string | null;
        outcome: AttemptOutcome;
      }[]
    >(ATTEMPTS_SQL, [webhookId, limit]);
    return rows.map((row) => ({
      eventId: row.event_id,
      eventType: row.event_type,
      attemptedAt: Number(row.attempted_at),
      status: row.status === null ? null : Number(row.status),
      error: row.error,
      outcome: row.outcome,
    }));
  }
}

export interface Subscriber {
  id: string;
  events: string[];
}

function placeholders(count: number): string {
  return Array(count).fill('?').join(', ');
}

/** Deletes the rows by id; says how many. */
async function deleteRows(
  em: EntityManager,
  table: string,
  rows: { id: number }[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => Number(row.id));
  await em.query(`DELETE FROM ${table} WHERE id IN (${placeholders(ids.length)})`, ids);
  return ids.length;
}
