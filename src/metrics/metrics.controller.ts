import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ProblemException, PROBLEMS } from '../common/problem';
import { MetricsService } from './metrics.service';

/** Outside the API pipeline (contract §16): no User-Agent rule, no rate limit. */
@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  private readonly expected: Buffer | null;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.expected = config.metricsToken === null ? null : digest(config.metricsToken);
  }

  @Get()
  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      'Prometheus text format: `http_requests_total` and `http_request_duration_seconds` by method, route pattern and status, `rate_limit_rejections_total`, `webhook_deliveries_total{outcome}`, `purged_rows_total{kind}` and the process metrics. With METRICS_TOKEN set, it needs `Authorization: Bearer <METRICS_TOKEN>`.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The metrics, text format 0.0.4' })
  @ApiUnauthorizedResponse({ description: 'METRICS_TOKEN is set and was not sent' })
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (this.expected !== null && !this.authorized(authorization)) {
      throw ProblemException.of(
        401,
        PROBLEMS.unauthorized,
        'Send the metrics token as "Authorization: Bearer <METRICS_TOKEN>"',
        { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      );
    }
    void reply.header('content-type', this.metrics.contentType);
    return this.metrics.exposition();
  }

  private authorized(authorization: string | undefined): boolean {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    // Digests of equal length, so that the comparison takes the same time whatever was sent.
    return match !== null && timingSafeEqual(digest(match[1]), this.expected!);
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
