import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../common/problem';
import { requestIdFor } from '../common/request-id';

/** llhttp's error codes (Node's HTTP parser), grouped by what the client got wrong. */
const PARSER_DETAILS: [RegExp, string][] = [
  [/^HPE_(INVALID_METHOD|INVALID_URL|INVALID_VERSION)$/, 'The request line is malformed'],
  [
    /^HPE_(UNEXPECTED_CONTENT_LENGTH|INVALID_CONTENT_LENGTH)$/,
    'Content-Length is invalid, repeated, or sent with Transfer-Encoding',
  ],
  [
    /^HPE_(INVALID_CHUNK_SIZE|INVALID_TRANSFER_ENCODING|CHUNK_EXTENSIONS_OVERFLOW)$/,
    'The chunked request body is malformed',
  ],
  [/^HPE_(INVALID_HEADER_TOKEN|LF_EXPECTED|CR_EXPECTED)$/, 'The request headers are malformed'],
];

export function clientErrorProblem(
  code: string | undefined,
  requestTimeoutSeconds: number,
): { status: number; detail: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      detail: `The whole request must arrive within ${requestTimeoutSeconds} seconds of its first byte`,
    };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, detail: 'The request headers are larger than 16384 bytes' };
  }
  const detail = PARSER_DETAILS.find(([pattern]) => pattern.test(code ?? ''))?.[1];
  return { status: 400, detail: detail ?? 'The request is not valid HTTP/1.1' };
}

/**
 * Fastify's `clientErrorHandler`: errors of Node's HTTP parser (bad request line, headers over the
 * limit, duplicate Content-Length, bad chunking) and the request timeout never reach a route, so
 * their problem+json answer (contract §3, §16) is written on the socket here, which is then closed.
 */
export function clientErrorHandler(requestTimeoutSeconds: number) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // A response already under way (its headers sent) cannot be replaced: only close.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const { status, detail } = clientErrorProblem(error.code, requestTimeoutSeconds);
      const body = JSON.stringify(problemBody(status, detail));
      const requestId = inFlight?.req ? requestIdFor(inFlight.req) : randomUUID();
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
          `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${requestId}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
