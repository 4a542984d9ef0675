import type { FastifyInstance } from 'fastify';
import { MetricsService, UNMATCHED_ROUTE } from './metrics.service';

/**
 * Counts every response, those Fastify answers before Nest included (404, a body too large), by
 * the route pattern Fastify matched: bounded label values, never a raw path or an id.
 */
export function addHttpMetricsHook(fastify: FastifyInstance, metrics: MetricsService): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}
