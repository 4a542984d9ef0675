import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemBody } from './common/problem';
import { sendProblem } from './common/problem-details.filter';
import { requestIdFor } from './common/request-id';
import { APP_CONFIG } from './config/config.module';
import { answerCors } from './cors/cors';
import { setupDocsPage } from './docs/docs-page';
import { buildOpenApiDocument } from './docs/openapi-document';
import { registerXmlBodies } from './mal-lists/import-body';
import { answerUnsupportedMethods } from './http-server/allowed-methods';
import { refuseEncodedBodies } from './http-server/content-encoding';
import { httpServerOptions } from './http-server/http-server';
import { addAccessLogHook } from './logging/access-log.hook';
import { AppLogger } from './logging/app-logger';
import { addHttpMetricsHook } from './metrics/http-metrics.hook';
import { MetricsService } from './metrics/metrics.service';
import { addRateLimitHeadersHook } from './rate-limit/rate-limit-headers.hook';
import { RateLimitService } from './rate-limit/rate-limit.service';
import {
  configureScrobbleReceiver,
  isScrobbleRequest,
  SCROBBLE_PREFIX,
} from './scrobbling/scrobble-receiver.http';
import { ScrobblingService } from './scrobbling/scrobbling.service';
import type { AppConfig } from './config/app-config';

export const BODY_LIMIT_BYTES = 16384;

/** The HTTP adapter of main.ts and of the e2e tests. */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    ...httpServerOptions(config),
    bodyLimit: BODY_LIMIT_BYTES,
    // The router's default (100) would answer a long {id} or {mediaType} 400 before authentication.
    routerOptions: { maxParamLength: 2048 },
    trustProxy: config.trustProxy,
    genReqId: requestIdFor,
    return503OnClosing: true,
    // JSON bodies are parsed as JSON.parse does: a `__proto__` or `constructor` key stays an own
    // property (it never sets a prototype) instead of failing as "not valid JSON", so that the
    // body validation can name it as the unknown field it is (ApiValidationPipe).
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    // Errors raised before routing (an undecodable path) never reach Nest's filters.
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('x-request-id', request.id);
      sendProblem(reply, problemBody(400, 'The request path could not be decoded'));
    },
  });
}

/** Everything main.ts and the e2e tests must share, so that they cannot drift apart. */
export function configureApp(app: NestFastifyApplication): NestFastifyApplication {
  const fastify = app.getHttpAdapter().getInstance();
  // Application logs and access logs: one JSON stream through pino (LOG_LEVEL applies to both).
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  app.flushLogs();

  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  // Before answerUnsupportedMethods: an allowed origin's preflight is answered here.
  answerCors(fastify, app.get<AppConfig>(APP_CONFIG).corsOrigins);
  answerUnsupportedMethods(fastify);
  // First: any path under /scrobble/ but the receiver's own is 404, whatever the method.
  configureScrobbleReceiver(fastify, app.get(ScrobblingService));
  answerUnsupportedMethods(fastify, SCROBBLE_PREFIX);
  refuseEncodedBodies(fastify);
  addRateLimitHeadersHook(fastify, app.get(RateLimitService));
  if (app.get<AppConfig>(APP_CONFIG).metricsEnabled) {
    addHttpMetricsHook(fastify, app.get(MetricsService));
  }
  addAccessLogHook(fastify, logger);

  // Bodies of any type are read (up to the size limit) instead of refused at once, so that a wrong
  // Content-Type is answered at step 7 of the pipeline, after authentication (contract §2).
  // The scrobble receiver keeps them: it reads multipart bodies itself (contract §21).
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) =>
    done(null, isScrobbleRequest(request.url) ? body : undefined),
  );
  registerXmlBodies(fastify);
  // application/json and application/x-www-form-urlencoded (the /oauth form posts) are parsed by
  // the parsers Nest's Fastify adapter registers at init(), for main.ts and the e2e apps alike;
  // registering another here would clash with them. A form body sent to PUT /v1/… is parsed but
  // still answered 415 at step 7: RatingRequestGuard checks the Content-Type, not the body.

  setupDocsPage(app, buildOpenApiDocument(app));

  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  return app;
}
