import { ConsoleLogger, LogLevel as NestLogLevel } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { BEARER_SECURITY } from './auth/auth.decorators';
import { problemBody } from './common/problem';
import { SCOPE_DESCRIPTIONS } from './oauth/consent-page';
import { CLIENT_BASIC_SECURITY } from './oauth/token.controller';
import { sendProblem } from './common/problem-details.filter';
import { requestIdFor } from './common/request-id';
import { addRateLimitHeadersHook } from './rate-limit/rate-limit-headers.hook';
import { RateLimitService } from './rate-limit/rate-limit.service';
import type { AppConfig, LogLevel } from './config/app-config';

export const BODY_LIMIT_BYTES = 16384;

/** The HTTP adapter of main.ts and of the e2e tests. */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // The router's default (100) would answer a long {id} or {mediaType} 400 before authentication.
    routerOptions: { maxParamLength: 2048 },
    trustProxy: config.trustProxy,
    genReqId: requestIdFor,
    return503OnClosing: true,
    // Errors raised before routing (an undecodable path) never reach Nest's filters.
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('x-request-id', request.id);
      sendProblem(reply, problemBody(400, 'The request path could not be decoded'));
    },
  });
}

export function createLogger(level: LogLevel, json = true): ConsoleLogger {
  const levels: Record<LogLevel, NestLogLevel[]> = {
    error: ['fatal', 'error'],
    warn: ['fatal', 'error', 'warn'],
    info: ['fatal', 'error', 'warn', 'log'],
    debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  };
  return new ConsoleLogger({ json, logLevels: levels[level] });
}

/** Everything main.ts and the e2e tests must share, so that they cannot drift apart. */
export function configureApp(app: NestFastifyApplication): NestFastifyApplication {
  const fastify = app.getHttpAdapter().getInstance();

  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  addRateLimitHeadersHook(fastify, app.get(RateLimitService));

  // Bodies of any type are read (up to the size limit) instead of refused at once, so that a wrong
  // Content-Type is answered at step 7 of the pipeline, after authentication (decisions §2).
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) =>
    done(null, undefined),
  );
  // application/json and application/x-www-form-urlencoded (the /oauth form posts) are parsed by
  // the parsers Nest's Fastify adapter registers at init(), for main.ts and the e2e apps alike;
  // registering another here would clash with them. A form body sent to PUT /v1/… is parsed but
  // still answered 415 at step 7: RatingRequestGuard checks the Content-Type, not the body.

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Anime & manga ratings')
      .setDescription(
        "A user's own list of rated anime and manga, and a profile with list statistics. Every `/v1` endpoint needs `Authorization: Bearer <token>` with the endpoint's scope and a `User-Agent` of the form `<AppName>/<version> (<contact>)`. Errors are `application/problem+json` (RFC 9457) with `success: false`. Rate limits: per user and per client IP, per endpoint; anime and manga share a budget. Apps get tokens from the OAuth 2.0 endpoints under `/oauth` (authorization code with PKCE S256, refresh, revocation, introspection; metadata at `/.well-known/oauth-authorization-server`), which are outside the /v1 pipeline and answer errors as the OAuth RFCs say.",
      )
      .setVersion('1')
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          description:
            "Either an opaque access token of this service (from the OAuth endpoints or the admin CLI; revoked at once when revoked), or, when the operator configured the company's identity provider (AUTH_JWT_ISSUER), a JWT access token it signed: checked against its published keys, issuer and audience, with the scopes in its `scope` or `scp` claim. Such a JWT is revoked by its issuer and valid until its `exp`.",
        },
        BEARER_SECURITY,
      )
      .addOAuth2(
        {
          type: 'oauth2',
          description:
            'How third-party apps get the bearer token: authorization code with PKCE (S256). The /oauth endpoints are outside the /v1 pipeline.',
          flows: {
            authorizationCode: {
              authorizationUrl: '/oauth/authorize',
              tokenUrl: '/oauth/token',
              refreshUrl: '/oauth/token',
              scopes: SCOPE_DESCRIPTIONS,
            },
          },
        },
        'oauth2',
      )
      .addBasicAuth(
        {
          type: 'http',
          scheme: 'basic',
          description: 'OAuth client authentication (client_id and client_secret)',
        },
        CLIENT_BASIC_SECURITY,
      )
      .build(),
  );
  describeErrorBodies(document);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });

  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  return app;
}

/**
 * Every error response of the document is the problem+json body of decisions §3, except those of
 * the OAuth endpoints, which are outside the API and answer as the OAuth RFCs say.
 */
function describeErrorBodies(document: OpenAPIObject): void {
  document.components = document.components ?? {};
  document.components.schemas = {
    ...document.components.schemas,
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details with the extension member success: false',
      required: ['type', 'title', 'status', 'detail', 'success'],
      properties: {
        type: { type: 'string', example: 'https://ratings.example/problems/validation' },
        title: { type: 'string', example: 'Invalid request body' },
        status: { type: 'integer', example: 400 },
        detail: { type: 'string', example: 'public_rating must be an integer from 0 to 10' },
        success: { type: 'boolean', enum: [false] },
        errors: {
          type: 'array',
          description: 'On validation failures: every offending field',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  };
  for (const [path, pathItem] of Object.entries(document.paths)) {
    if (path.startsWith('/oauth/') || path.startsWith('/.well-known/')) continue;
    for (const operation of Object.values(pathItem)) {
      const responses = (operation as { responses?: Record<string, { content?: unknown }> })
        .responses;
      for (const [status, response] of Object.entries(responses ?? {})) {
        if (Number(status) >= 400) {
          response.content = {
            'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
          };
        }
      }
    }
  }
}
