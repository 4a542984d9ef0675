import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { AuthModule } from './auth/auth.module';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { IpDenialGuard } from './auth/ip-denial.guard';
import { ScopesGuard } from './auth/scopes.guard';
import { UserAgentGuard } from './auth/user-agent.guard';
import { CardsModule } from './cards/cards.module';
import { CatalogModule } from './catalog/catalog.module';
import { ProblemDetailsFilter } from './common/problem-details.filter';
import { AppConfig, loadConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { CountersModule } from './counters/counters.module';
import { DatabaseModule } from './database/database.module';
import { ENTITIES } from './entities';
import { DocsModule } from './docs/docs.module';
import { HealthModule } from './health/health.module';
import { HistoryModule } from './history/history.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { PurgesModule } from './purges/purges.module';
import { MalListsModule } from './mal-lists/mal-lists.module';
import { OAuthModule } from './oauth/oauth.module';
import { ProfileModule } from './profile/profile.module';
import { PublicListsModule } from './public-lists/public-lists.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RatingsModule } from './ratings/ratings.module';
import { ScrobblingModule } from './scrobbling/scrobbling.module';
import { SettingsModule } from './settings/settings.module';
import { StatisticsModule } from './statistics/statistics.module';
import { SyncModule } from './sync/sync.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class AppModule {
  /** `config` replaces the environment (tests); by default it is read from process.env. */
  static forRoot(config?: AppConfig): DynamicModule {
    const settings = config ?? loadConfig();
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot({ attempts: 5, entities: ENTITIES }),
        EventEmitterModule.forRoot(),
        CountersModule,
        UsersModule,
        AuthModule,
        CatalogModule,
        RateLimitModule,
        RatingsModule,
        SyncModule,
        MalListsModule,
        WebhooksModule,
        SettingsModule,
        HistoryModule,
        ScrobblingModule,
        ProfileModule,
        StatisticsModule,
        // PUBLIC_LISTS=false (the default) leaves it out: its paths answer 404 like unknown ones.
        ...(settings.publicLists ? [PublicListsModule] : []),
        // PUBLIC_CARDS=false (the default) leaves it out too: its path answers 404.
        ...(settings.publicCards ? [CardsModule] : []),
        HealthModule,
        DocsModule,
        MetricsModule.forRoot(settings.metricsEnabled),
        LoggingModule,
        PurgesModule,
        // Outside the pipeline below: no route of it carries @Authenticated/@Scopes/@RateLimited.
        // OAUTH_SERVER=false leaves it out, so its paths answer 404.
        ...(settings.oauthServer ? [OAuthModule] : []),
      ],
      providers: [
        // Global guards run in registration order: this list is the pipeline of contract §2.
        // Each applies only to routes marked @Authenticated()/@Scopes()/@RateLimited(). The
        // RateLimit-* headers of responses refused before step 6 come from a Fastify hook (app.setup).
        { provide: APP_GUARD, useExisting: IpDenialGuard }, // 1. 403 + Retry-After
        { provide: APP_GUARD, useExisting: UserAgentGuard }, // 2. 403
        { provide: APP_GUARD, useExisting: BearerAuthGuard }, // 3. 401 (4. mediaType: 404 by route)
        { provide: APP_GUARD, useExisting: ScopesGuard }, // 5. 403 insufficient_scope
        { provide: APP_GUARD, useExisting: RateLimitGuard }, // 6. 429
        // 7. path, query, Content-Type: RatingRequestGuard on the routes; the body: ApiValidationPipe
        // on the body parameter, given its DTO class (the controllers are made per media type, so
        // the parameter's design type cannot name it).
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
    };
  }
}
