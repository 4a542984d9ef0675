import type { INestApplication } from '@nestjs/common';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ALL_SCOPES } from '../auth/scopes';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { packageVersion } from './package-version';

/** Where Swagger UI is served; its static files, oauth2-redirect.html among them, are beneath. */
export const DOCS_PATH = '/docs';
/** The page Swagger UI's OAuth2 "Authorize" comes back to: the docs client's redirect URI. */
export const DOCS_OAUTH_REDIRECT_PATH = `${DOCS_PATH}/oauth2-redirect.html`;

/** The identity the docs page sends (contract §17): browsers cannot set `User-Agent`. */
export function docsApiUserAgent(): string {
  return `RatingsDocs/${packageVersion()} (Swagger UI at /docs)`;
}

/**
 * Runs in the page before Swagger UI starts. Swagger UI derives its OAuth2 redirect page from the
 * page's address, which for `/docs` (no trailing slash) is `/oauth2-redirect.html`, a page nobody
 * serves; the one served is DOCS_OAUTH_REDIRECT_PATH. The origin is only known in the browser
 * (behind a proxy, the server may not know it), so the option is set there, around Swagger UI's
 * entry point.
 */
function pageScript(): string {
  return `window.ratingsDocsApiUserAgent = ${JSON.stringify(docsApiUserAgent())};
window.SwaggerUIBundle = ((SwaggerUI) =>
  Object.assign(
    (options) =>
      SwaggerUI({ ...options, oauth2RedirectUrl: location.origin + ${JSON.stringify(DOCS_OAUTH_REDIRECT_PATH)} }),
    SwaggerUI,
  ))(window.SwaggerUIBundle);`;
}

/**
 * Swagger UI at /docs and the document at /docs/openapi.json. "Try it out" runs in the browser,
 * whose own `User-Agent` (`Mozilla/…`) the API refuses, so every request the page makes carries
 * the page's identity in `Api-User-Agent`. "Authorize" offers a bearer token, or the OAuth2
 * authorization code flow with PKCE against the public client the operator registered for the
 * page (DOCS_OAUTH_CLIENT_ID fills its id in).
 */
export function setupDocsPage(app: INestApplication, document: OpenAPIObject): void {
  const config = app.get<AppConfig>(APP_CONFIG);
  SwaggerModule.setup(DOCS_PATH.slice(1), app, document, {
    jsonDocumentUrl: `${DOCS_PATH.slice(1)}/openapi.json`,
    customSiteTitle: 'Anime & manga ratings API',
    customJsStr: pageScript(),
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
      initOAuth: {
        usePkceWithAuthorizationCodeGrant: true,
        ...(config.docsOAuthClientId ? { clientId: config.docsOAuthClientId } : {}),
        scopes: [...ALL_SCOPES],
      },
      persistAuthorization: false,
    },
  });
}
