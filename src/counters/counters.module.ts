import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CounterStore } from './counter-store';
import { MemoryCounterStore } from './memory-counter-store';
import { RedisCounterStore } from './redis-counter-store';

@Global()
@Module({
  providers: [
    {
      provide: CounterStore,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): CounterStore =>
        config.redisUrl
          ? new RedisCounterStore(config.redisUrl, config.redisKeyPrefix, config.redisSentinel)
          : new MemoryCounterStore(),
    },
  ],
  exports: [CounterStore],
})
export class CountersModule {}
