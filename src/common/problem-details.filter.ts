import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  Optional,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseAvailability } from '../database/database-availability.service';
import { isDatabaseUnavailable } from '../database/database-timeouts';
import {
  PROBLEM_CONTENT_TYPE,
  ProblemDetails,
  ProblemException,
  PROBLEMS,
  problemBody,
} from './problem';

/** Fastify's own client errors (body too large, bad JSON, bad content type) carry a 4xx statusCode. */
interface ClientError {
  statusCode: number;
  message: string;
  code?: string;
}

function isClientError(error: unknown): error is ClientError {
  const status = (error as Partial<ClientError> | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

const FASTIFY_DETAILS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is larger than 16384 bytes',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty; send a JSON object',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type; send application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
};

/** The 413's detail: the limit of the route the body was sent to (the scrobble receiver's is larger). */
function tooLarge(request: FastifyRequest): string {
  const limit = request.routeOptions?.bodyLimit;
  return limit
    ? `The request body is larger than ${limit} bytes`
    : FASTIFY_DETAILS.FST_ERR_CTP_BODY_TOO_LARGE;
}

/** Seconds a client waits before trying again after a database 503 (a failover: contract §23). */
export const DATABASE_RETRY_AFTER = '2';

export const DATABASE_UNAVAILABLE = problemBody(
  503,
  'The database does not answer in time; try again shortly',
  PROBLEMS.unavailable,
);

/** Every error, from any layer, leaves as problem+json (contract §3). */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemDetailsFilter.name);

  constructor(@Optional() private readonly database?: DatabaseAvailability) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { problem, headers } = this.toProblem(exception, request);
    sendProblem(reply, problem, headers);
  }

  private toProblem(
    exception: unknown,
    request: FastifyRequest,
  ): { problem: ProblemDetails; headers: Record<string, string> } {
    if (exception instanceof ProblemException) {
      return { problem: exception.problem, headers: exception.headers };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status >= 500) return this.unexpected(exception, request);
      const detail = status === 413 ? tooLarge(request) : httpExceptionDetail(exception);
      return { problem: problemBody(status, detail), headers: {} };
    }
    if (exception instanceof SyntaxError) {
      return { problem: problemBody(400, 'The request body is not valid JSON'), headers: {} };
    }
    if (isClientError(exception)) {
      const detail =
        (exception.statusCode === 413 ? tooLarge(request) : undefined) ??
        (exception.code && FASTIFY_DETAILS[exception.code]) ??
        (exception.statusCode === 400 ? 'The request body is not valid JSON' : 'Bad request');
      return { problem: problemBody(exception.statusCode, detail), headers: {} };
    }
    if (isDatabaseUnavailable(exception)) {
      // Logged once per outage by DatabaseAvailability, not once per request.
      this.database?.reportUnavailable(exception);
      return { problem: DATABASE_UNAVAILABLE, headers: { 'Retry-After': DATABASE_RETRY_AFTER } };
    }
    return this.unexpected(exception, request);
  }

  private unexpected(
    exception: unknown,
    request: FastifyRequest,
  ): { problem: ProblemDetails; headers: Record<string, string> } {
    const stack = exception instanceof Error ? exception.stack : String(exception);
    this.logger.error(
      `Unexpected error on ${request.method} ${request.routeOptions?.url ?? 'unmatched route'} (request ${request.id})`,
      stack,
    );
    return {
      problem: problemBody(
        500,
        `An unexpected error occurred; quote request id ${request.id} when reporting it`,
        PROBLEMS.internal,
      ),
      headers: {},
    };
  }
}

function httpExceptionDetail(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return exception.message;
}

export function sendProblem(
  reply: FastifyReply,
  problem: ProblemDetails,
  headers: Record<string, string> = {},
): void {
  void reply
    .status(problem.status)
    .headers(headers)
    // Also set by an onRequest hook, which some of Fastify's own answers skip.
    .header('x-request-id', reply.request.id)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problem));
}
