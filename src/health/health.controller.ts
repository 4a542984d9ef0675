import { Controller, Get, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { sendProblem } from '../common/problem-details.filter';
import { problemBody } from '../common/problem';
import { CounterStore } from '../counters/counter-store';

/**
 * Outside the API pipeline: no token, no User-Agent rule. Hand-written rather than
 * @nestjs/terminus because the contract fixes the body to `{"status":"ok"}`.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly counters: CounterStore,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Liveness and database check',
    description:
      '200 `{"status":"ok"}` when the database answers. With REDIS_URL set and Redis unreachable: 200 `{"status":"degraded","redis":"down"}` (rate limits fail open). 503 problem+json when the database does not answer.',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer' })
  async check(
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, string> | void> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      return sendProblem(reply, problemBody(503, 'The database does not answer'));
    }
    const redis = await this.counters.isReachable();
    return redis === false ? { status: 'degraded', redis: 'down' } : { status: 'ok' };
  }
}
