import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';

export const RATE_LIMIT_ENDPOINT_KEY = 'rate-limit:endpoint';

/**
 * Counts the route against the per-user and per-IP budgets of `endpoint`, one row of the spec's
 * endpoint table: routes that share a name (anime and manga) share a budget (decisions §5).
 */
export function RateLimited(endpoint: string): MethodDecorator {
  return applyDecorators(
    SetMetadata(RATE_LIMIT_ENDPOINT_KEY, endpoint),
    ApiTooManyRequestsResponse({
      description:
        'Rate limit exceeded (per user and per client IP, per endpoint). Carries `Retry-After`; every response of the endpoint carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`.',
    }),
  );
}
