import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ProblemException, PROBLEMS } from '../common/problem';
import { routeFacts } from '../common/route-facts';
import { MetricsService } from '../metrics/metrics.service';
import { RateLimitService } from './rate-limit.service';

/** Step 6 of contract §2: counts the request in every window, 429 when one is exhausted. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly limits: RateLimitService,
    private readonly metrics: MetricsService,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const endpoint = routeFacts(context).rateLimitEndpoint;
    if (endpoint === undefined) return true;
    return this.count(endpoint, context);
  }

  private async count(endpoint: string, context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { user: AuthenticatedUser }>();
    const decision = await this.limits.hit(endpoint, request.user.id, request.ip);
    if (decision.retryAfterSeconds === null) {
      void http.getResponse<FastifyReply>().headers(decision.headers);
      return true;
    }
    this.metrics.countRateLimitRejection();
    throw ProblemException.of(
      429,
      PROBLEMS.rateLimited,
      `Rate limit of ${decision.exceededLimit} requests exceeded for this endpoint; retry in ${decision.retryAfterSeconds} seconds`,
      { ...decision.headers, 'Retry-After': String(decision.retryAfterSeconds) },
    );
  }
}
