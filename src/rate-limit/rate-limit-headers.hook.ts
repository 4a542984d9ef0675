import type { FastifyInstance } from 'fastify';
import { RATE_LIMIT_KEY, type RateLimitedRoute } from '../common/route-metadata';
import { RateLimitService } from './rate-limit.service';

/**
 * Puts the address's `RateLimit-*` budget on every response of a rate-limited route that did not
 * reach step 6 of contract §2 (§5: every response of such an endpoint), read without counting:
 * refusals at steps 1-5, a body over the size limit (413) or broken JSON (400), which the body
 * parser answers before any guard, and the 404 of an unknown media type. Responses that reached
 * step 6 already carry the counted budget of RateLimitGuard, so they cost nothing here.
 */
export function addRateLimitHeadersHook(fastify: FastifyInstance, limits: RateLimitService): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const route = (request.routeOptions.config as { [RATE_LIMIT_KEY]?: RateLimitedRoute })[
      RATE_LIMIT_KEY
    ];
    if (!route || reply.hasHeader('ratelimit-limit')) {
      done(null, payload);
      return;
    }
    limits.peek(route.endpoint, request.ip).then(
      (headers) => {
        void reply.headers(headers);
        done(null, payload);
      },
      // The counter store is out (Redis down): the answer goes out without the budget rather than
      // being replaced by an error of its own.
      () => done(null, payload),
    );
  });
}
