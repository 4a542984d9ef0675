import type { FastifyInstance } from 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { UNMATCHED_ROUTE } from '../metrics/metrics.service';
import type { AppLogger } from './app-logger';

/**
 * One JSON line per request at `info` (decisions §16): the request id of X-Request-Id, method,
 * route pattern, status, duration, and the user and OAuth client when known. Never a header, a
 * query string or a body.
 */
export function addAccessLogHook(fastify: FastifyInstance, logger: AppLogger): void {
  const pino = logger.pino;
  fastify.addHook('onResponse', async (request, reply) => {
    if (!pino.isLevelEnabled('info')) return;
    const user = (request as { user?: AuthenticatedUser }).user;
    pino.info(
      {
        request_id: request.id,
        method: request.method,
        route: request.routeOptions.url ?? UNMATCHED_ROUTE,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
        user_id: user?.id ?? null,
        client_id: user?.clientId ?? null,
      },
      'request',
    );
  });
}
