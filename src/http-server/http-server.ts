import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../common/problem';
import { requestIdFor } from '../common/request-id';
import type { AppConfig } from '../config/app-config';
import { clientErrorHandler } from './client-errors';

/** Fastify's own default: longer than the idle timeout of common load balancers (60 s). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * How often Node checks requests against their deadline. Its default (30 s) would let a request
 * outlive REQUEST_TIMEOUT_SECONDS by up to that much; contract §16 wants the 408 within 2 s.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The Node HTTP server under Fastify (its `serverFactory`) and its client-error handler:
 * - every request must arrive whole within REQUEST_TIMEOUT_SECONDS of its first byte, headers and
 *   body alike, however steadily it trickles (then 408 problem+json, connection closed);
 * - at most MAX_CONNECTIONS open connections: Node closes further ones as they arrive;
 * - HTTP/1.1 without Host is answered here, as problem+json with an X-Request-Id, where Node would
 *   send a bare 400.
 */
export function httpServerOptions(config: AppConfig) {
  const requestTimeoutMs = config.http.requestTimeoutSeconds * 1000;
  return {
    clientErrorHandler: clientErrorHandler(config.http.requestTimeoutSeconds),
    serverFactory: (handler: Handler): Server => {
      const server = createServer(
        {
          requestTimeout: requestTimeoutMs,
          headersTimeout: requestTimeoutMs,
          connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
          requireHostHeader: false,
        },
        (request, response) => {
          if (request.httpVersion === '1.1' && request.headers.host === undefined) {
            const body = JSON.stringify(problemBody(400, 'HTTP/1.1 requests need a Host header'));
            response.writeHead(400, {
              'content-type': PROBLEM_CONTENT_TYPE,
              'content-length': Buffer.byteLength(body),
              'x-request-id': requestIdFor(request),
              connection: 'close',
            });
            response.end(body);
            return;
          }
          handler(request, response);
        },
      );
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.maxConnections = config.http.maxConnections;
      return server;
    },
  };
}
