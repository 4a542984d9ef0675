import { applyDecorators, Type } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import { CONDITIONAL_READ_HEADERS } from '../conditional-reads/conditional-read.decorator';
import { RATING_STATUSES } from '../media-types/rating-status';

/**
 * The OpenAPI of a list read with the options of `parseListOptions` (`status`, `limit`, `after`)
 * and its 200: an array of `view`, conditional-read headers and the next page's `Link`. Shared by
 * the owner's list and the public one.
 */
export function ListOptionsDocs(view: Type<unknown>): MethodDecorator {
  return applyDecorators(
    // Applied last to first: the document lists status, limit, after.
    ApiQuery({
      name: 'after',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
      description: 'Only entries with a title id above this one (needs `limit`)',
    }),
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 1000 },
      description: 'At most this many entries',
    }),
    ApiQuery({
      name: 'status',
      required: false,
      // No `example`: Swagger UI would pre-fill "Try it out" with it, and filter the list.
      description: `Comma-separated statuses (of ${RATING_STATUSES.join(', ')}), e.g. \`ongoing,on_hold\``,
    }),
    ApiOkResponse({
      type: view,
      isArray: true,
      headers: {
        ...CONDITIONAL_READ_HEADERS,
        Link: {
          description: 'Present when entries remain after this page: `<path?query>; rel="next"`',
          schema: { type: 'string' },
        },
      },
    }),
    ApiBadRequestResponse({ description: 'Invalid query value, or after without limit' }),
  );
}
