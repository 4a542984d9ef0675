import type { FastifyInstance } from 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { UNMATCHED_ROUTE } from '../metrics/metrics.service';
import type { AppLogger } from './app-logger';

/**
 * One JSON line per request at `info` (contract §16): the request id of X-Request-Id, method,
 * route pattern, status, duration, and the user and OAuth client when known. Never a header, a
 * query string or a body.
 */
export function addAccessLogHook(fastify: FastifyInstance, logger: AppLogger): void {
  // The line's fields are fixed and hold no secret: the redaction paths of the application logger,
  // which cost more than the rest of the line, are not applied to it.
  const pino = logger.pino.child({}, { redact: [] });
  if (!pino.isLevelEnabled('info')) return;
  fastify.addHook('onResponse', (request, reply, done) => {
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
    done();
  });
}
