import { applyDecorators, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';

import { RATE_LIMIT_KEY, type RateLimitedRoute } from '../common/route-metadata';

/**
 * Counts the route against the per-user and per-IP budgets of `endpoint`, one row of contract §2's
 * endpoint table: routes that share a name (anime and manga) share a budget (contract §5).
 * RateLimitGuard counts; the `RateLimit-*` headers of responses refused earlier, the body parser's
 * 413 and 400 included, come from the route's Fastify config (see rate-limit-headers.hook.ts),
 * because Fastify reads the body before any guard runs.
 */
export function RateLimited(
  endpoint: string,
  options: { counted?: boolean } = {},
): MethodDecorator {
  const route: RateLimitedRoute = { endpoint, counted: options.counted ?? true };
  return applyDecorators(
    SetMetadata(RATE_LIMIT_KEY, route),
    RouteConfig({ [RATE_LIMIT_KEY]: route }),
    ApiTooManyRequestsResponse({
      description:
        'Rate limit exceeded (per user and per client IP, per endpoint). Carries `Retry-After`; every response of the endpoint carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`.',
    }),
  );
}
