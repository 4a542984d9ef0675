import { DynamicModule, Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** Global: the rate limits, the purges and the webhooks count into the one registry. */
@Global()
@Module({})
export class MetricsModule {
  /** `enabled` false (METRICS_ENABLED=false): the registry stays, nothing serves it. */
  static forRoot(enabled: boolean): DynamicModule {
    return {
      module: MetricsModule,
      controllers: enabled ? [MetricsController] : [],
      providers: [MetricsService],
      exports: [MetricsService],
    };
  }
}
