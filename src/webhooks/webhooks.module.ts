import { Module } from '@nestjs/common';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookOutboxModule } from './webhook-outbox.module';
import { WebhookPurges } from './webhook-purges';
import { WebhookSender } from './webhook-sender';

/** Outbound webhooks (contract §15) in the server: the outbox hook, the delivery worker
 * and the purges of its log and of finished events. */
@Module({
  imports: [WebhookOutboxModule],
  providers: [WebhookSender, WebhookDispatcher, WebhookPurges],
})
export class WebhooksModule {}
