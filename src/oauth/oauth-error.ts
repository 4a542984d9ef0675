import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { OAuthError, ServerError } from '@node-oauth/oauth2-server';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The error codes of RFC 6749 §4.1.2.1 and §5.2, RFC 7009 §2.2.1. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error';

/** The JSON error body of the token, revocation and introspection endpoints. */
export interface OAuthErrorBody {
  error: string;
  error_description?: string;
}

/**
 * An error of the OAuth endpoints, answered as the RFCs say rather than as problem+json: the
 * OAuth endpoints are outside the /v1 API and their clients are OAuth libraries.
 */
export class OAuthProtocolError extends Error {
  constructor(
    readonly status: number,
    /** An OAuthErrorCode, or another code the library raised. */
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }

  /** From an error of @node-oauth/oauth2-server, with the headers it put on its Response. */
  static from(error: OAuthError, headers: Record<string, string> = {}): OAuthProtocolError {
    return new OAuthProtocolError(error.code, error.name, error.message, headers);
  }

  get body(): OAuthErrorBody {
    return { error: this.error, error_description: this.description };
  }
}

/** RFC 6749 §5.1/§5.2: token responses, and their errors, must not be cached. */
export const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

export function sendOAuthJson(
  reply: FastifyReply,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  void reply
    .status(status)
    .headers({ ...NO_STORE_HEADERS, ...headers })
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

/**
 * The exception filters of the OAuth endpoints, each scoped to its controller so that it runs
 * instead of the API's global problem+json filter. The exception becomes the protocol's error; an
 * unexpected one is logged with the request id and named no further. `answer` sends it.
 */
export abstract class OAuthErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('OAuth');

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    this.answer(toProtocolError(exception, request, this.logger), request, reply);
  }

  protected abstract answer(
    error: OAuthProtocolError,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void;
}

/**
 * The filter of the token, revocation and introspection endpoints: RFC 6749 §5.2 JSON bodies; an
 * unexpected error is a 500 `server_error`.
 */
@Catch()
export class OAuthJsonErrorFilter extends OAuthErrorFilter {
  protected answer(error: OAuthProtocolError, _request: FastifyRequest, reply: FastifyReply): void {
    sendOAuthJson(reply, error.status, error.body, error.headers);
  }
}

export function toProtocolError(
  exception: unknown,
  request: FastifyRequest,
  logger: Logger,
): OAuthProtocolError {
  if (exception instanceof OAuthProtocolError && exception.status < 500) return exception;
  if (exception instanceof OAuthError && !(exception instanceof ServerError)) {
    return OAuthProtocolError.from(exception);
  }
  const cause =
    exception instanceof ServerError
      ? ((exception as { inner?: unknown }).inner ?? exception)
      : exception;
  logger.error(
    `Unexpected error on ${request.method} ${request.url.split('?')[0]} (request ${request.id})`,
    cause instanceof Error ? cause.stack : String(cause),
  );
  return new OAuthProtocolError(
    500,
    'server_error',
    `An unexpected error occurred; quote request id ${request.id} when reporting it`,
  );
}
