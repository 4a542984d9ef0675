import type { FastifyInstance } from 'fastify';
import { problemBody } from '../common/problem';
import { sendProblem } from '../common/problem-details.filter';

const METHOD_ORDER = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE'];

/** A route pattern such as `/v1/my/:mediaType/:id/ratings` as a test of a request path. */
export function patternOf(url: string): RegExp {
  const segments = url
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return new RegExp(`^${segments.join('/')}/?$`);
}

/**
 * A known path under `prefix` asked with a method it does not have: 405 problem+json with `Allow`;
 * OPTIONS on it: 204 with `Allow` (contract §16). Both before the pipeline, like unmatched
 * routes: the paths and their methods are those Fastify registers, collected as they are.
 * Must be called before the routes are registered (configureApp runs before init()).
 */
export function answerUnsupportedMethods(fastify: FastifyInstance, prefix = '/v1/'): void {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  fastify.addHook('onRoute', (route) => {
    if (!route.url.startsWith(prefix)) return;
    const entry = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set() };
    routes.set(route.url, entry);
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
  });

  fastify.addHook('onRequest', (request, reply, done) => {
    const path = request.is404 ? request.url.split('?')[0] : '';
    if (!path.startsWith(prefix)) {
      done();
      return;
    }
    const allowed = new Set<string>();
    for (const { pattern, methods } of routes.values()) {
      if (pattern.test(path)) for (const method of methods) allowed.add(method);
    }
    if (allowed.size === 0) {
      done();
      return;
    }
    const allow = [...METHOD_ORDER.filter((method) => allowed.has(method)), 'OPTIONS'].join(', ');
    void reply.header('allow', allow);
    if (request.method === 'OPTIONS') void reply.status(204).send();
    else {
      sendProblem(
        reply,
        problemBody(405, `${request.method} is not allowed on this path; use ${allow}`),
      );
    }
  });
}
