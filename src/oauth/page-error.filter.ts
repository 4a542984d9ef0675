import { Catch } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderErrorPage } from './consent-page';
import { OAuthErrorFilter } from './oauth-error';

/**
 * The last resort of the authorization endpoint, whose answers are pages for a person: an
 * unexpected error is a plain HTML page naming the request id, not problem+json.
 */
@Catch()
export class OAuthPageErrorFilter extends OAuthErrorFilter {
  protected answer(_error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    void reply
      .status(500)
      .headers(PAGE_HEADERS)
      .send(
        renderErrorPage(
          'Something went wrong',
          `The authorization server failed; quote request id ${request.id} when reporting it.`,
        ),
      );
  }
}

/** Headers of every page of the authorization endpoint: not cached, not framed, no scripts. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // No form-action: browsers apply it to the redirect that follows the post, to the client's site.
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
} as const;
