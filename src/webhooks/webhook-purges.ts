import { Injectable, OnModuleInit } from '@nestjs/common';
import { PurgeRegistry } from '../purges/purge-registry';
import { WebhookPurgesRepository } from './webhook-purges.repository';

const KEEP_MS = 30 * 86_400_000;

/**
 * Attempts logged more than 30 days ago, and events 30 days after they were delivered or failed,
 * go (contract §16); so do events of webhooks deleted while a write was recording them.
 */
@Injectable()
export class WebhookPurges implements OnModuleInit {
  constructor(
    private readonly repository: WebhookPurgesRepository,
    private readonly registry: PurgeRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      kind: 'webhook_attempts',
      purgeBatch: (now, limit) =>
        this.repository.purgeAttemptsBefore(now.getTime() - KEEP_MS, limit),
    });
    this.registry.register({
      kind: 'webhook_events',
      purgeBatch: (now, limit) =>
        this.repository.purgeFinishedBefore(now.getTime() - KEEP_MS, limit),
    });
    this.registry.register({
      kind: 'webhook_events_of_deleted_webhooks',
      purgeBatch: (_now, limit) => this.repository.purgeOfDeletedWebhooks(limit),
    });
  }
}
