import type { INestApplication } from '@nestjs/common';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { packageVersion } from './package-version';

/** The identity the docs page sends (decisions §17): browsers cannot set `User-Agent`. */
export function docsApiUserAgent(): string {
  return `RatingsDocs/${packageVersion()} (Swagger UI at /docs)`;
}

/**
 * Swagger UI at /docs and the document at /docs/openapi.json. "Try it out" runs in the browser,
 * whose own `User-Agent` (`Mozilla/…`) the API refuses, so every request the page makes carries
 * the page's identity in `Api-User-Agent`.
 */
export function setupDocsPage(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    customSiteTitle: 'Anime & manga ratings API',
    // Runs in the page before Swagger UI starts; the interceptor below reads it.
    customJsStr: `window.ratingsDocsApiUserAgent = ${JSON.stringify(docsApiUserAgent())};`,
    swaggerOptions: {
      // @nestjs/swagger writes this function's source into the page: it must not use anything
      // from this module's scope.
      requestInterceptor: (request: { headers: Record<string, string> }) => {
        const page = globalThis as unknown as { ratingsDocsApiUserAgent?: string };
        if (page.ratingsDocsApiUserAgent && !request.headers['Api-User-Agent']) {
          request.headers['Api-User-Agent'] = page.ratingsDocsApiUserAgent;
        }
        return request;
      },
      persistAuthorization: false,
    },
  });
}
