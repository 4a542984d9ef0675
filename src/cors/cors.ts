import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { patternOf } from '../http-server/allowed-methods';

/** Request headers a browser app may send (contract §17). */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Content-Encoding',
  'Api-User-Agent',
  'If-None-Match',
];

/** Response headers a browser app may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Link',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'X-Request-Id',
  'WWW-Authenticate',
  'Content-Disposition',
];

/** The OAuth endpoints browser apps (public clients with PKCE) call, with their methods. */
const OAUTH_PATHS: Record<string, string[]> = {
  '/oauth/token': ['POST'],
  '/oauth/revoke': ['POST'],
  '/oauth/introspect': ['POST'],
  '/.well-known/oauth-authorization-server': ['GET'],
};

const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS for the origins of CORS_ORIGINS (contract §17), written by hand rather than with
 * @fastify/cors: that plugin routes every OPTIONS request to a catch-all route of its own, which
 * would take OPTIONS away from the 405/Allow answer of allowed-methods.ts, and it cannot allow each
 * path only its own methods. Preflights are answered in an onRequest hook, before the pipeline
 * (no token, User-Agent or rate limit applies to them); every response to an allowed origin,
 * errors included, gets `Access-Control-Allow-Origin` in onSend. Other origins get nothing.
 * Must be called before the routes are registered, and before answerUnsupportedMethods.
 */
export function answerCors(fastify: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  const apiRoutes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  fastify.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/')) return;
    const entry = apiRoutes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set() };
    apiRoutes.set(route.url, entry);
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
  });

  const methodsOf = (path: string): string[] => {
    if (OAUTH_PATHS[path]) return OAUTH_PATHS[path];
    const methods = new Set<string>();
    if (path.startsWith('/v1/')) {
      for (const { pattern, methods: own } of apiRoutes.values()) {
        if (pattern.test(path)) for (const method of own) methods.add(method);
      }
    }
    methods.delete('HEAD');
    return [...methods];
  };

  const allowedOrigin = (request: FastifyRequest): string | null => {
    const origin = request.headers.origin;
    return typeof origin === 'string' && allowed.has(origin) ? origin : null;
  };

  fastify.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'OPTIONS' || !request.headers['access-control-request-method']) return;
    const origin = allowedOrigin(request);
    if (origin === null) return;
    const methods = methodsOf(request.url.split('?')[0]);
    if (methods.length === 0) return;
    void reply
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-methods', methods.join(', '))
      .header('access-control-allow-headers', CORS_ALLOWED_HEADERS.join(', '))
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
      .header('vary', 'Origin');
    return reply.status(204).send();
  });

  fastify.addHook('onSend', async (request, reply: FastifyReply, payload) => {
    const origin = allowedOrigin(request);
    if (origin === null) return payload;
    void reply.header('access-control-allow-origin', origin);
    if (!reply.hasHeader('access-control-allow-methods')) {
      void reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '));
    }
    const vary = reply.getHeader('vary');
    const varies = typeof vary === 'string' ? vary.split(',').map((v) => v.trim()) : [];
    if (!varies.some((v) => v.toLowerCase() === 'origin')) {
      void reply.header('vary', [...varies.filter((v) => v !== ''), 'Origin'].join(', '));
    }
    return payload;
  });
}
