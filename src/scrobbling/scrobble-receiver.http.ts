import type { FastifyInstance, FastifyRequest } from 'fastify';
import { problemBody } from '../common/problem';
import { sendProblem } from '../common/problem-details.filter';
import { SCROBBLE_BODY_LIMIT_BYTES } from './scrobble-body';
import type { ScrobbleAdmission, ScrobblingService } from './scrobbling.service';

export const SCROBBLE_PREFIX = '/scrobble/';
/** The path pattern of the receiver (its secret never reaches logs or metrics: they print this). */
export const SCROBBLE_ROUTE = '/scrobble/:secret';

/** Whether a request is one for the receiver: its body is read raw, whatever its type. */
export function isScrobbleRequest(url: string): boolean {
  return url.startsWith(SCROBBLE_PREFIX);
}

const admissions = new WeakMap<FastifyRequest, ScrobbleAdmission>();

/** What the hook of configureScrobbleReceiver found out about a request before its body was read. */
export function admissionOf(request: FastifyRequest): ScrobbleAdmission {
  const admission = admissions.get(request);
  if (!admission) throw new Error('The scrobble receiver runs without configureScrobbleReceiver');
  return admission;
}

/**
 * The receiver's HTTP settings, before the routes are registered (configureApp, which also
 * answers its other methods 405 with `Allow`): its 2 MiB body limit (the API's is 16 KiB), and a
 * 404 that names no path for any other path under /scrobble/ (Nest's own 404 would echo it, secret
 * included).
 *
 * The secret, its rate limit and the Content-Type are checked here, before the body is read
 * (contract §21: 404, 429, 415, then 413 and 400), and before a `Content-Encoding` is refused.
 */
export function configureScrobbleReceiver(
  fastify: FastifyInstance,
  scrobbling: ScrobblingService,
): void {
  fastify.addHook('onRoute', (route) => {
    if (isScrobbleRequest(route.url)) route.bodyLimit = SCROBBLE_BODY_LIMIT_BYTES;
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?')[0];
    const underReceiver = path === '/scrobble' || isScrobbleRequest(path);
    if (underReceiver && !/^\/scrobble\/[^/]+$/.test(path)) {
      sendProblem(reply, problemBody(404, 'No scrobbler answers at this address'));
      return;
    }
    done();
  });
  // A callback hook, not an async one: every other request passes it without a promise.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'POST' || request.routeOptions.url !== SCROBBLE_ROUTE) {
      done();
      return;
    }
    const { secret } = request.params as { secret: string };
    scrobbling
      .admit(secret, request.headers['content-type'], (headers) => {
        void reply.headers(headers);
      })
      .then((admission) => {
        admissions.set(request, admission);
        done();
      }, done);
  });
}
