import { Controller, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthorizationService, AuthorizeContext, AuthorizeOutcome } from './authorization.service';
import { csrfCookie, csrfFromCookies } from './csrf';
import { AuthorizeFormDto } from './oauth.dto';
import { OAuthPageErrorFilter, PAGE_HEADERS } from './page-error.filter';
import { issuerOf } from './oauth-metadata';

const REDIRECT_DESCRIPTION =
  'Back to the redirect_uri with `code`, `state` and `iss` (RFC 9207), or with `error` (invalid_request — plain or missing PKCE among others —, unsupported_response_type, invalid_scope, access_denied, server_error), `error_description`, `state` and `iss`.';

/**
 * GET/POST /oauth/authorize: outside the /v1 pipeline (no token, no User-Agent rule). Answers are
 * pages and redirects, sent here rather than through the API's problem+json filter.
 */
@ApiTags('oauth')
@ApiExtraModels(AuthorizeFormDto)
@Controller('oauth/authorize')
@UseFilters(OAuthPageErrorFilter)
export class AuthorizeController {
  constructor(private readonly authorization: AuthorizationService) {}

  @Get()
  @ApiOperation({
    summary: 'Authorization endpoint (RFC 6749 §4.1.1, PKCE S256 required)',
    description:
      'Outside the /v1 pipeline. Shows the sign-in and consent page listing the requested scopes. An unknown client_id or a redirect_uri that is not registered exactly is a 400 page (never a redirect); other errors redirect back.',
  })
  @ApiQuery({ name: 'response_type', enum: ['code'] })
  @ApiQuery({ name: 'client_id' })
  @ApiQuery({ name: 'redirect_uri', description: 'One of the client’s registered URIs, exactly' })
  @ApiQuery({ name: 'scope', example: 'ratings.anime ratings.manga user.profile' })
  @ApiQuery({ name: 'state', required: false })
  @ApiQuery({ name: 'code_challenge', description: 'base64url(SHA-256(code_verifier))' })
  @ApiQuery({ name: 'code_challenge_method', enum: ['S256'], description: '`plain` is refused' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The sign-in and consent page (sets the `oauth_csrf` cookie)' })
  @ApiFoundResponse({ description: REDIRECT_DESCRIPTION })
  @ApiBadRequestResponse({
    description: 'Unknown client_id, or redirect_uri missing or not registered: an HTML page',
  })
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const outcome = await this.authorization.show(
      (request.query ?? {}) as Record<string, unknown>,
      contextOf(request),
    );
    send(request, reply, outcome, 302);
  }

  @Post()
  @ApiOperation({
    summary: 'Sign-in and consent form post',
    description:
      'Outside the /v1 pipeline. CSRF-protected (the `csrf_token` field must equal the `oauth_csrf` cookie of the page). Sign-in attempts, successful ones included, are throttled per account (5 per 15 minutes) and per client IP (20 per 15 minutes, IPv6 by /64), counted before the password is checked.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ schema: { $ref: getSchemaPath(AuthorizeFormDto) } })
  @ApiResponse({ status: 303, description: REDIRECT_DESCRIPTION })
  @ApiBadRequestResponse({
    description: 'The page again, with the reason (wrong credentials, no scope ticked)',
  })
  @ApiResponse({ status: 403, description: 'CSRF check failed: an HTML page' })
  @ApiResponse({
    status: 429,
    description: 'Sign-in throttled, or too many at once: the page again, with Retry-After',
  })
  async decide(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = request.body;
    const outcome = await this.authorization.decide(
      form !== null && typeof form === 'object' ? (form as Record<string, unknown>) : {},
      contextOf(request),
    );
    // 303: the browser follows the redirect after a post with a GET.
    send(request, reply, outcome, 303);
  }
}

function contextOf(request: FastifyRequest): AuthorizeContext {
  return {
    csrfCookie: csrfFromCookies(request.headers.cookie),
    clientIp: request.ip,
    issuer: issuerOf(request),
    requestId: String(request.id),
  };
}

function send(
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: AuthorizeOutcome,
  redirectStatus: 302 | 303,
): void {
  if (outcome.kind === 'redirect') {
    void reply
      .status(redirectStatus)
      .headers({
        location: outcome.location,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      })
      .send();
    return;
  }
  void reply.status(outcome.status).headers({ ...PAGE_HEADERS, ...outcome.headers });
  if (outcome.csrfToken) {
    void reply.header('set-cookie', csrfCookie(outcome.csrfToken, request.protocol === 'https'));
  }
  void reply.send(outcome.html);
}
