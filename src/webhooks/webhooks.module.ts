import { Module } from '@nestjs/common';
import { WebhookClaimsRepository } from './webhook-claims.repository';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookOutboxModule } from './webhook-outbox.module';
import { WebhookPurges } from './webhook-purges';
import { WebhookPurgesRepository } from './webhook-purges.repository';
import { WebhookRecordingRepository } from './webhook-recording.repository';
import { WebhookSender } from './webhook-sender';

/** Outbound webhooks (contract §15) in the server: the outbox hook, the delivery worker
 * and the purges of its log and of finished events. */
@Module({
  imports: [WebhookOutboxModule],
  providers: [
    WebhookClaimsRepository,
    WebhookRecordingRepository,
    WebhookPurgesRepository,
    WebhookSender,
    WebhookDispatcher,
    WebhookPurges,
  ],
})
export class WebhooksModule {}
