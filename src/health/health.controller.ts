import { Controller, Get, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { sendProblem } from '../common/problem-details.filter';
import { problemBody } from '../common/problem';
import { CounterStore } from '../counters/counter-store';
import { DatabaseAvailability } from '../database/database-availability.service';

/** The readiness check gives up on the database after this long (contract §16: at most 1.5 s). */
export const READY_DATABASE_TIMEOUT_MS = 1500;

type HealthBody = { status: 'ok' } | { status: 'degraded'; redis: 'down' };

const READY_DESCRIPTION =
  '200 `{"status":"ok"}` when the database answers within 1.5 s. With REDIS_URL set and Redis unreachable: 200 `{"status":"degraded","redis":"down"}` (rate limits fail open; the instance still serves). 503 problem+json, within 2 s, while the database does not answer. For load balancers and orchestrators\' readiness probes.';

/**
 * Outside the API pipeline: no token, no User-Agent rule. @nestjs/terminus runs the database
 * check (with its timeout); the bodies stay the small ones of the contract.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly availability: DatabaseAvailability,
    private readonly counters: CounterStore,
  ) {}

  @Get('live')
  @ApiOperation({
    summary: 'Liveness',
    description:
      '200 `{"status":"ok"}` while the process serves; never touches the database or Redis. For orchestrators\' liveness probes: restart the instance when this fails.',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): HealthBody {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: the database answers', description: READY_DESCRIPTION })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer' })
  ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthBody | void> {
    return this.check(reply);
  }

  @Get()
  @ApiOperation({ summary: 'Readiness (same as /health/ready)', description: READY_DESCRIPTION })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer' })
  check(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthBody | void> {
    return this.readiness(reply);
  }

  private async readiness(reply: FastifyReply): Promise<HealthBody | void> {
    try {
      await this.health.check([
        () => this.database.pingCheck('database', { timeout: READY_DATABASE_TIMEOUT_MS }),
      ]);
    } catch {
      this.availability.reportUnavailable({ code: 'readiness check failed' });
      return sendProblem(reply, problemBody(503, 'The database does not answer'));
    }
    const redis = await this.counters.isReachable();
    return redis === false ? { status: 'degraded', redis: 'down' } : { status: 'ok' };
  }
}
