import { Module } from '@nestjs/common';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookOutboxModule } from './webhook-outbox.module';
import { WebhookSender } from './webhook-sender';

/** Outbound webhooks (decisions §15) in the server: the outbox hook and the delivery worker. */
@Module({
  imports: [WebhookOutboxModule],
  providers: [WebhookSender, WebhookDispatcher],
})
export class WebhooksModule {}
