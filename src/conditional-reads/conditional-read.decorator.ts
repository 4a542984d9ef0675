import { applyDecorators } from '@nestjs/common';
import {
  ApiHeader,
  ApiOkResponse,
  ApiResponse,
  type ApiResponseNoStatusOptions,
} from '@nestjs/swagger';

/**
 * OpenAPI of a read that answers `If-None-Match` (contract §10); given `ok`, its 200 as well, with
 * the headers of every 200 of a conditional read.
 */
export function ConditionalRead(ok?: ApiResponseNoStatusOptions): MethodDecorator {
  return applyDecorators(
    ...(ok ? [ApiOkResponse({ ...ok, headers: CONDITIONAL_READ_HEADERS })] : []),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description:
        'An ETag of an earlier 200 of this request (a comma-separated list, `W/` tags and `*` allowed): 304 when the body would be the same',
    }),
    ApiResponse({
      status: 304,
      description:
        'Not modified: the body would be the one of the ETag you sent. No body; `ETag`, `Cache-Control`, `Vary` and `RateLimit-*` as on the 200. Counts against the rate limits.',
    }),
  );
}

/** The headers of every 200 of a conditional read (with more of its own: ListOptionsDocs). */
export const CONDITIONAL_READ_HEADERS = {
  ETag: {
    description:
      'Stands for this body (user, endpoint, media type, query and data): the same on every instance while the body is the same',
    schema: { type: 'string' },
  },
  'Cache-Control': { description: '`private, no-cache`', schema: { type: 'string' } },
  Vary: { description: '`Authorization`', schema: { type: 'string' } },
};
