import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { toIsoSeconds } from '../common/timestamps';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AddressRefusedError, assertGlobalHost } from './address-policy';
import { WEBHOOK_EVENTS, WebhookEventType, isWebhookEvent } from './webhook-events';
import { Webhook } from './webhook.entity';
import { AttemptOutcome, WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookOutboxRepository } from './webhook-outbox.repository';

const MAX_URL_LENGTH = 2048;
const RECENT_ATTEMPTS = 100;

/** A refused `webhooks` command: the message says what is wrong. */
export class WebhookCommandError extends Error {}

export interface CreatedWebhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** Shown once, at creation. */
  secret: string;
}

export interface ListedWebhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  created_at: string;
}

export interface DeliveryAttempt {
  event: WebhookEventType;
  'webhook-id': string;
  at: string;
  status: number | null;
  error: string | null;
  outcome: AttemptOutcome;
}

/**
 * The `webhooks` commands of contract §15, and what other modules ask of the webhooks: the
 * erasure of a user's events not yet sent.
 */
@Injectable()
export class WebhooksService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: WebhookEndpointsRepository,
    private readonly outbox: WebhookOutboxRepository,
  ) {}

  async create(rawUrl: string, rawEvents?: string): Promise<CreatedWebhook> {
    const url = parseReceiverUrl(rawUrl);
    const events = parseEvents(rawEvents);
    if (!this.config.webhooks.allowPrivate) await checkReceiverHost(url);
    const webhook: Webhook = {
      id: randomUUID(),
      url: url.toString(),
      events: events.join(','),
      // Standard Webhooks secrets: `whsec_` and the base64 of the HMAC key (32 random bytes).
      secret: `whsec_${randomBytes(32).toString('base64')}`,
      createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
    };
    await this.repository.insertWebhook(webhook);
    return { id: webhook.id, url: webhook.url, events, secret: webhook.secret };
  }

  async list(): Promise<ListedWebhook[]> {
    return (await this.repository.listWebhooks()).map((webhook) => ({
      id: webhook.id,
      url: webhook.url,
      events: webhook.events.split(',') as WebhookEventType[],
      created_at: toIsoSeconds(webhook.createdAt),
    }));
  }

  async delete(id: string): Promise<void> {
    if (!(await this.repository.deleteWebhook(id))) throw unknownWebhook(id);
  }

  /** The most recent attempts, newest first. */
  async deliveries(id: string): Promise<DeliveryAttempt[]> {
    if (!(await this.repository.exists(id))) throw unknownWebhook(id);
    return (await this.repository.attempts(id, RECENT_ATTEMPTS)).map((attempt) => ({
      event: attempt.eventType,
      'webhook-id': attempt.eventId,
      at: new Date(attempt.attemptedAt).toISOString(),
      status: attempt.status,
      error: attempt.error,
      outcome: attempt.outcome,
    }));
  }

  /**
   * Drops the user's events not yet delivered or failed, in the caller's transaction (`users
   * delete`: they carry the user's data).
   */
  dropPendingOfUser(em: EntityManager, userId: number): Promise<void> {
    return this.outbox.dropPendingOfUser(em, userId);
  }
}

function unknownWebhook(id: string): WebhookCommandError {
  return new WebhookCommandError(`no webhook with id ${JSON.stringify(id)}`);
}

function parseReceiverUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookCommandError(`--url ${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebhookCommandError(`--url must be an http or https URL (got ${url.protocol})`);
  }
  if (url.toString().length > MAX_URL_LENGTH) {
    throw new WebhookCommandError(`--url must be at most ${MAX_URL_LENGTH} characters`);
  }
  return url;
}

function parseEvents(raw: string | undefined): WebhookEventType[] {
  if (raw === undefined) return [...WEBHOOK_EVENTS];
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isWebhookEvent(name));
  if (unknown.length > 0) {
    throw new WebhookCommandError(
      `unknown event ${unknown.map((name) => JSON.stringify(name)).join(', ')}: use ${WEBHOOK_EVENTS.join(', ')}`,
    );
  }
  return WEBHOOK_EVENTS.filter((event) => names.includes(event));
}

async function checkReceiverHost(url: URL): Promise<void> {
  try {
    await assertGlobalHost(url);
  } catch (error) {
    if (error instanceof AddressRefusedError) throw new WebhookCommandError(error.message);
    throw new WebhookCommandError(`cannot resolve the host of --url (${(error as Error).message})`);
  }
}
