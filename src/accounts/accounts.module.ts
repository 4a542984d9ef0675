import { Module } from '@nestjs/common';
import { TokensModule } from '../auth/tokens.module';
import { HistoryModule } from '../history/history.module';
import { OAuthGrantsModule } from '../oauth/oauth-grants.module';
import { ProfileStatisticsModule } from '../profile/profile-statistics.module';
import { RatingsModule } from '../ratings/ratings.module';
import { ScrobblersModule } from '../scrobbling/scrobblers.module';
import { SettingsModule } from '../settings/settings.module';
import { SyncHooksModule } from '../sync/sync-hooks.module';
import { UsersModule } from '../users/users.module';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { AccountErasure } from './account-erasure';
import { AccountExport } from './account-export';
import { AccountTokens } from './account-tokens';
import { NamedUsers } from './named-user';

/**
 * What the operator does with a whole account (the admin CLI): its tokens, its export, its
 * erasure. Each step asks the module that owns the data; nothing here touches a table.
 */
@Module({
  imports: [
    UsersModule,
    RatingsModule,
    SyncHooksModule,
    WebhookOutboxModule,
    TokensModule,
    OAuthGrantsModule,
    ProfileStatisticsModule,
    HistoryModule,
    SettingsModule,
    ScrobblersModule,
  ],
  providers: [NamedUsers, AccountErasure, AccountExport, AccountTokens],
  exports: [AccountErasure, AccountExport, AccountTokens],
})
export class AccountsModule {}
