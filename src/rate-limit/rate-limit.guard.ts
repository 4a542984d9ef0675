import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ProblemException, PROBLEMS } from '../common/problem';
import { MetricsService } from '../metrics/metrics.service';
import { rateLimitedRoute } from './rate-limited.decorator';
import { RateLimitService } from './rate-limit.service';

/** Step 6 of contract §2: counts the request in every window, 429 when one is exhausted. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RateLimitService,
    private readonly metrics: MetricsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = rateLimitedRoute(this.reflector, context);
    if (!route?.counted) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { user: AuthenticatedUser }>();
    const decision = await this.limits.hit(route.endpoint, request.user.id, request.ip);
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
