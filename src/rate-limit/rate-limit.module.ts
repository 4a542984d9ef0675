import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CounterStore } from '../counters/counter-store';
import { CounterThrottlerStorage } from './counter-throttler.storage';
import { RateLimitPreviewGuard } from './rate-limit-preview.guard';
import { RateLimitGuard } from './rate-limit.guard';

@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, CounterStore],
      useFactory: (config: AppConfig, counters: CounterStore) => ({
        storage: new CounterThrottlerStorage(counters),
        setHeaders: false,
        throttlers: [
          {
            name: 'user',
            limit: config.rateLimit.user.limit,
            ttl: config.rateLimit.user.windowSeconds * 1000,
            getTracker: (req: Record<string, unknown>) =>
              `user:${(req.user as AuthenticatedUser).id}`,
          },
          {
            name: 'ip',
            limit: config.rateLimit.ip.limit,
            ttl: config.rateLimit.ip.windowSeconds * 1000,
            getTracker: (req: Record<string, unknown>) =>
              `ip:${(req as unknown as FastifyRequest).ip}`,
          },
        ],
      }),
    }),
  ],
  providers: [RateLimitGuard, RateLimitPreviewGuard],
  exports: [RateLimitGuard, RateLimitPreviewGuard],
})
export class RateLimitModule {}
