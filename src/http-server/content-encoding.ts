import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PROBLEMS, problemBody } from '../common/problem';
import { sendProblem } from '../common/problem-details.filter';

/**
 * Route config flag: the route reads its body itself and decodes the content codings it supports,
 * answering 415 for the others (the MyAnimeList imports take gzip).
 */
export const DECODES_CONTENT_ENCODING = 'http-server:decodes-content-encoding';

/** The content codings a `Content-Encoding` header lists, in lower case, `identity` left out. */
export function contentCodingsOf(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
  );
}

/**
 * A body with a `Content-Encoding` other than `identity` sent to a route that does not decode it:
 * 415 problem+json with `Accept-Encoding: identity` (RFC 9110 §15.5.16), never parsed as if it were
 * plain (contract §2, step 7). Answered where the body would be read, before the pipeline's other
 * checks, as a body over the size limit is: the routes that read their body before the pipeline
 * cannot check it later without having parsed the encoded bytes.
 */
export function refuseEncodedBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config as unknown as Record<string, unknown> | undefined;
    const codings = contentCodingsOf(request.headers['content-encoding']);
    if (
      request.is404 ||
      codings.length === 0 ||
      !hasBody(request) ||
      config?.[DECODES_CONTENT_ENCODING] === true
    ) {
      done();
      return;
    }
    // The body stays unread: the connection cannot carry another request after it.
    sendProblem(
      reply,
      problemBody(
        415,
        `Content-Encoding "${codings.join(', ')}" is not supported here: send the body unencoded`,
        PROBLEMS.unsupportedMediaType,
      ),
      { 'accept-encoding': 'identity', connection: 'close' },
    );
  });
}
