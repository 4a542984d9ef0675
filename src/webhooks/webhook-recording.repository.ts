import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isSqlite, runTransaction } from '../database/transactions';
import {
  ClaimedWork,
  ClaimTerms,
  OutboxMessage,
  WebhookClaimsRepository,
} from './webhook-claims.repository';
import type { AttemptOutcome, AttemptRecord } from './webhook-endpoints.repository';
import { MESSAGES_BY_ID, placeholders } from './webhook-sql';

/** An attempt that ended, to be recorded: `nextAttemptAt` (ms) when it is retried. */
export interface FinishedAttempt {
  webhookId: string;
  message: OutboxMessage;
  attempt: AttemptRecord;
  nextAttemptAt: number | null;
}

const RETRY_SQL = `UPDATE webhook_messages SET attempts = ?, next_attempt_at = ?, lease_until = 0,
  leased_by = NULL WHERE id = ? AND state = 'pending'`;
const INSERT_ATTEMPTS_SQL = `INSERT INTO webhook_attempts
  (webhook_id, event_id, event_type, attempted_at, status, error, outcome) VALUES`;
/** SQLite runs one writer at a time anyway: no locking clause. */
const LOCK_SQL = { mysql: ' FOR UPDATE', sqlite: '' };

/**
 * The SQL of the delivery worker's recording: the outcome of attempts on their messages, and the
 * log of attempts (read by WebhookEndpointsRepository.attempts). Times are Unix milliseconds.
 */
@Injectable()
export class WebhookRecordingRepository {
  private readonly lock: string;
  private readonly messagesById: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly claims: WebhookClaimsRepository,
  ) {
    const sqlite = isSqlite(dataSource);
    this.lock = sqlite ? LOCK_SQL.sqlite : LOCK_SQL.mysql;
    this.messagesById = sqlite ? MESSAGES_BY_ID.sqlite : MESSAGES_BY_ID.mysql;
  }

  /**
   * Records attempts that ended together, in one transaction: each message is delivered, due
   * again at its `nextAttemptAt`, or failed, and the log gets a line for each. Nothing is recorded
   * for a message that is gone (its webhook was deleted, its user erased; on SQLite its id may
   * then come again, hence the event id), nor for one whose lease ran out and another instance
   * took over: that instance's attempt decides it. With `claimNext`, and attempts of one webhook,
   * the same transaction then claims that webhook's next due messages (as
   * WebhookClaimsRepository.claim does): one commit, not two.
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
        const work = await this.claims.claimIn(
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
        `UPDATE ${this.messagesById} SET state = ?, attempts = ?, lease_until = 0,
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
    return `SELECT id, event_id FROM ${this.messagesById} WHERE id IN (${placeholders(count)})
      AND state = 'pending' AND leased_by = ?${this.lock}`;
  }
}
