import { Module } from '@nestjs/common';
import { WebhookOutboxModule } from './webhook-outbox.module';

/** Outbound webhooks (decisions §15) in the server: the outbox hook and the delivery workers. */
@Module({
  imports: [WebhookOutboxModule],
})
export class WebhooksModule {}
