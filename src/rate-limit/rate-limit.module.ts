import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CounterStore } from '../counters/counter-store';
import { CounterThrottlerStorage } from './counter-throttler.storage';
import { RateLimitGuard } from './rate-limit.guard';
import { RATE_LIMIT_WINDOWS, RateLimitService } from './rate-limit.service';

/**
 * The two named throttlers of contract §5 (`user`, `ip`) and their storage are @nestjs/throttler
 * configuration; RateLimitService applies them the way the contract counts (every window hit, one
 * header set), which the stock ThrottlerGuard does not.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, CounterStore],
      useFactory: (config: AppConfig, counters: CounterStore) => ({
        throttlers: RATE_LIMIT_WINDOWS.map((name) => ({
          name,
          limit: config.rateLimit[name].limit,
          ttl: config.rateLimit[name].windowSeconds * 1000,
        })),
        storage: new CounterThrottlerStorage(counters),
      }),
    }),
  ],
  providers: [RateLimitService, RateLimitGuard],
  exports: [RateLimitService, RateLimitGuard],
})
export class RateLimitModule {}
