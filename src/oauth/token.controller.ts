import { applyDecorators, Controller, Post, Req, Res, UseFilters, type Type } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
  getSchemaPath,
  type ApiOperationOptions,
  type ApiResponseOptions,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  IntrospectionResponseDto,
  OAuthErrorDto,
  TokenActionRequestDto,
  TokenRequestDto,
  TokenResponseDto,
} from './oauth.dto';
import { OAuthJsonErrorFilter, OAuthProtocolError, sendOAuthJson } from './oauth-error';
import { issuerOf } from './oauth-metadata';
import { OAuthServerService } from './oauth-server.service';
import { TokenLifecycleService, TokenTypeHint } from './token-lifecycle.service';
import { contentTypeEssence } from '../common/content-type';

export const CLIENT_BASIC_SECURITY = 'client_secret_basic';

const FORM = 'application/x-www-form-urlencoded';

function formOf(request: FastifyRequest): Record<string, unknown> {
  if (contentTypeEssence(request.headers['content-type']) !== FORM) {
    throw new OAuthProtocolError(400, 'invalid_request', `the body must be ${FORM}`);
  }
  return (request.body ?? {}) as Record<string, unknown>;
}

function tokenParams(form: Record<string, unknown>): {
  token: string;
  hint: TokenTypeHint | undefined;
} {
  for (const name of ['token', 'token_type_hint']) {
    if (Array.isArray(form[name])) {
      throw new OAuthProtocolError(400, 'invalid_request', `${name} is repeated`);
    }
  }
  const token = form.token;
  if (typeof token !== 'string' || token === '') {
    throw new OAuthProtocolError(400, 'invalid_request', 'token is missing');
  }
  const hint = form.token_type_hint;
  // An unknown hint is ignored (RFC 7009 §2.1): every kind of token is looked up anyway.
  return {
    token,
    hint: hint === 'access_token' || hint === 'refresh_token' ? hint : undefined,
  };
}

/**
 * One of these endpoints: POST `path` with a form-encoded `body`, answered with `ok` or with an
 * OAuth error (RFC 6749 §5.2 JSON, not problem+json).
 */
function OAuthFormEndpoint(
  path: string,
  operation: ApiOperationOptions,
  body: Type<unknown>,
  ok: ApiResponseOptions,
): MethodDecorator {
  return applyDecorators(
    Post(path),
    ApiOperation(operation),
    ApiConsumes(FORM),
    ApiBody({ schema: { $ref: getSchemaPath(body) } }),
    ApiOkResponse(ok),
    ApiBadRequestResponse({ type: OAuthErrorDto, description: 'An RFC 6749 §5.2 error' }),
    ApiUnauthorizedResponse({
      type: OAuthErrorDto,
      description: '`invalid_client`, with `WWW-Authenticate: Basic realm="oauth"`',
    }),
  );
}

/**
 * The token, revocation and introspection endpoints: outside the /v1 pipeline, form-encoded
 * requests, JSON answers and RFC 6749 error bodies (OAuthJsonErrorFilter, not problem+json).
 */
@ApiTags('oauth')
@ApiExtraModels(TokenRequestDto, TokenActionRequestDto)
@ApiBasicAuth(CLIENT_BASIC_SECURITY)
@Controller('oauth')
@UseFilters(OAuthJsonErrorFilter)
export class TokenController {
  constructor(
    private readonly server: OAuthServerService,
    private readonly lifecycle: TokenLifecycleService,
  ) {}

  @OAuthFormEndpoint(
    'token',
    {
      summary: 'Token endpoint (RFC 6749 §3.2): authorization_code with PKCE, refresh_token',
      description:
        'Outside the /v1 pipeline. Client authentication: client_secret_basic or client_secret_post; public clients send client_id alone. Codes are single-use and live 60 seconds; a code presented twice revokes what it issued. Refresh tokens rotate: each is exchanged once, and presenting a used one revokes the whole authorization.',
    },
    TokenRequestDto,
    { type: TokenResponseDto },
  )
  async token(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const answer = await this.server.token(request);
    sendOAuthJson(reply, answer.status, answer.body, answer.headers);
  }

  @OAuthFormEndpoint(
    'revoke',
    {
      summary: 'Token revocation (RFC 7009)',
      description:
        'Outside the /v1 pipeline. Client-authenticated (public clients by client_id). Revoking a refresh token revokes the whole authorization, its access tokens included; revoking an access token revokes it alone. 200 when the token was revoked, unknown, or issued by the admin CLI (which stays valid); 400 `unauthorized_client` when it was issued to another client (it stays valid).',
    },
    TokenActionRequestDto,
    {
      description:
        'Revoked, or nothing to revoke: `{}` as application/json (RFC 7009 lets the body be anything; some clients parse it as JSON)',
      schema: { type: 'object', additionalProperties: false, example: {} },
    },
  )
  async revoke(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { client, token, hint } = await this.tokenAction(request, true);
    await this.lifecycle.revoke(client, token, hint);
    sendOAuthJson(reply, 200, {});
  }

  @OAuthFormEndpoint(
    'introspect',
    {
      summary: 'Token introspection (RFC 7662)',
      description:
        'Outside the /v1 pipeline. Confidential clients only (client_secret_basic or client_secret_post). A client sees only tokens issued to it: any other token is `{"active":false}`.',
    },
    TokenActionRequestDto,
    { type: IntrospectionResponseDto },
  )
  async introspect(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { client, token, hint } = await this.tokenAction(request, false);
    const answer = await this.lifecycle.introspect(client, token, hint, issuerOf(request));
    sendOAuthJson(reply, 200, answer);
  }

  /** The client, authenticated, and the token a revocation or introspection request names. */
  private async tokenAction(request: FastifyRequest, allowPublic: boolean) {
    const form = formOf(request);
    const client = await this.lifecycle.authenticateClient(request.headers.authorization, form, {
      allowPublic,
    });
    return { client, ...tokenParams(form) };
  }
}
