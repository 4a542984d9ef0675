import { HttpException, HttpStatus } from '@nestjs/common';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';
const PROBLEM_TYPE_BASE = 'https://ratings.example/problems/';

export interface FieldError {
  field: string;
  message: string;
}

/** The RFC 9457 body every error of the API has (contract §3). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  success: false;
  errors?: FieldError[];
}

interface ProblemKind {
  slug: string;
  title: string;
}

export const PROBLEMS = {
  badRequest: { slug: 'bad-request', title: 'Bad request' },
  validation: { slug: 'validation', title: 'Invalid request body' },
  invalidParameter: { slug: 'invalid-parameter', title: 'Invalid request parameter' },
  unauthorized: { slug: 'unauthorized', title: 'Authentication required' },
  invalidToken: { slug: 'invalid-token', title: 'Invalid access token' },
  userAgent: { slug: 'user-agent', title: 'User-Agent rejected' },
  ipDenied: { slug: 'ip-denied', title: 'Client address temporarily denied' },
  insufficientScope: { slug: 'insufficient-scope', title: 'Insufficient scope' },
  forbidden: { slug: 'forbidden', title: 'Forbidden' },
  notFound: { slug: 'not-found', title: 'Not found' },
  methodNotAllowed: { slug: 'method-not-allowed', title: 'Method not allowed' },
  conflict: { slug: 'conflict', title: 'Conflict' },
  requestTimeout: { slug: 'request-timeout', title: 'Request timeout' },
  payloadTooLarge: { slug: 'payload-too-large', title: 'Request body too large' },
  unsupportedMediaType: { slug: 'unsupported-media-type', title: 'Unsupported media type' },
  headersTooLarge: { slug: 'headers-too-large', title: 'Request header fields too large' },
  rateLimited: { slug: 'rate-limited', title: 'Too many requests' },
  internal: { slug: 'internal', title: 'Internal server error' },
  unavailable: { slug: 'unavailable', title: 'Service unavailable' },
} as const satisfies Record<string, ProblemKind>;

const BY_STATUS: Record<number, ProblemKind> = {
  400: PROBLEMS.badRequest,
  401: PROBLEMS.unauthorized,
  403: PROBLEMS.forbidden,
  404: PROBLEMS.notFound,
  405: PROBLEMS.methodNotAllowed,
  408: PROBLEMS.requestTimeout,
  409: PROBLEMS.conflict,
  413: PROBLEMS.payloadTooLarge,
  415: PROBLEMS.unsupportedMediaType,
  431: PROBLEMS.headersTooLarge,
  429: PROBLEMS.rateLimited,
  500: PROBLEMS.internal,
  503: PROBLEMS.unavailable,
};

export function problemBody(
  status: number,
  detail: string,
  kind: ProblemKind = BY_STATUS[status] ?? {
    slug: `http-${status}`,
    title: statusTitle(status),
  },
  errors?: FieldError[],
): ProblemDetails {
  return {
    type: PROBLEM_TYPE_BASE + kind.slug,
    title: kind.title,
    status,
    detail,
    success: false,
    ...(errors ? { errors } : {}),
  };
}

function statusTitle(status: number): string {
  const name = HttpStatus[status];
  return typeof name === 'string'
    ? name
        .toLowerCase()
        .split('_')
        .map((word, i) => (i === 0 ? word[0].toUpperCase() + word.slice(1) : word))
        .join(' ')
    : 'Error';
}

/** An error that already knows its problem+json body and any headers it must carry. */
export class ProblemException extends HttpException {
  constructor(
    readonly problem: ProblemDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(problem, problem.status);
  }

  static of(
    status: number,
    kind: ProblemKind,
    detail: string,
    headers: Record<string, string> = {},
  ): ProblemException {
    return new ProblemException(problemBody(status, detail, kind), headers);
  }

  static validation(
    errors: FieldError[],
    kind: ProblemKind = PROBLEMS.validation,
  ): ProblemException {
    const detail = errors.map((e) => `${e.field} ${e.message}`).join('; ');
    return new ProblemException(problemBody(400, detail, kind, errors));
  }

  static notFound(detail: string): ProblemException {
    return ProblemException.of(404, PROBLEMS.notFound, detail);
  }
}
