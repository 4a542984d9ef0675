import { Module, OnModuleInit } from '@nestjs/common';
import { RatingWriteHooks } from '../ratings/rating-write-hooks';
import { RatingsModule } from '../ratings/ratings.module';
import { UsersModule } from '../users/users.module';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks for every process that writes entries (the server and the CLI): the endpoints and the
 * outbox hook on the write path. Delivery is the server's (WebhooksModule); the CLI never delivers.
 */
@Module({
  imports: [RatingsModule, UsersModule],
  providers: [WebhookEndpointsRepository, WebhookOutboxRepository, WebhookOutbox, WebhooksService],
  exports: [WebhooksService],
})
export class WebhookOutboxModule implements OnModuleInit {
  constructor(
    private readonly hooks: RatingWriteHooks,
    private readonly outbox: WebhookOutbox,
  ) {}

  onModuleInit(): void {
    this.hooks.register((em, change) => this.outbox.record(em, change));
  }
}
