import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runTransaction } from '../database/transactions';
import type { WebhookEventType } from './webhook-events';
import { Webhook } from './webhook.entity';

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

const ATTEMPTS_SQL = `SELECT event_id, event_type, attempted_at, status, error, outcome
  FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`;

/**
 * The SQL of the `webhooks` commands: the endpoints, and the log of their attempts (written by
 * WebhookRecordingRepository). Times in the log are Unix milliseconds.
 */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
