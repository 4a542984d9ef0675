import type { FastifyInstance } from 'fastify';
import { RATE_LIMIT_KEY, RateLimitedRoute } from './rate-limited.decorator';
import { RateLimitService } from './rate-limit.service';

/**
 * Puts the address's `RateLimit-*` budget on every response of a rate-limited route before
 * anything else runs (decisions §5: every response of such an endpoint), read without counting:
 * refusals at steps 1-5 of §2, a body over the size limit (413) or broken JSON (400), which the
 * body parser answers before any guard, and the 404 of an unknown media type.
 * RateLimitGuard replaces them with the counted budget for requests that reach step 6.
 */
export function addRateLimitHeadersHook(fastify: FastifyInstance, limits: RateLimitService): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const route = (request.routeOptions.config as { [RATE_LIMIT_KEY]?: RateLimitedRoute })[
      RATE_LIMIT_KEY
    ];
    if (!route) return;
    void reply.headers(await limits.peek(route.endpoint, request.ip));
  });
}
