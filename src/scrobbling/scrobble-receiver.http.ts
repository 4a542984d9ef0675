import type { FastifyInstance } from 'fastify';
import { problemBody } from '../common/problem';
import { sendProblem } from '../common/problem-details.filter';
import { SCROBBLE_BODY_LIMIT_BYTES } from './scrobble-body';

export const SCROBBLE_PREFIX = '/scrobble/';

/** Whether a request is one for the receiver: its body is read raw, whatever its type. */
export function isScrobbleRequest(url: string): boolean {
  return url.startsWith(SCROBBLE_PREFIX);
}

/**
 * The receiver's HTTP settings, before the routes are registered (configureApp, which also
 * answers its other methods 405 with `Allow`): its 2 MiB body limit (the API's is 16 KiB), and a
 * 404 that names no path for any other path under /scrobble/ (Nest's own 404 would echo it, secret
 * included).
 */
export function configureScrobbleReceiver(fastify: FastifyInstance): void {
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
}
