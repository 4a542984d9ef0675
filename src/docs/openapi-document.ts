import type { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ReferenceObject,
  SchemaObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { BEARER_SECURITY, OAUTH2_SECURITY } from '../auth/auth.decorators';
import { problemBody, PROBLEMS, ProblemDetails } from '../common/problem';
import { SCOPE_DESCRIPTIONS } from '../oauth/consent-page';
import { CLIENT_BASIC_SECURITY } from '../oauth/token.controller';
import { packageVersion } from './package-version';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** The OpenAPI document served at /docs/openapi.json (contract §17). */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Anime & manga ratings')
      .setDescription(
        "A user's own list of rated anime and manga, and a profile with list statistics. Every `/v1` endpoint needs `Authorization: Bearer <token>` with the endpoint's scope and a `User-Agent` of the form `<AppName>/<version> (<contact>)`; browsers, which cannot set `User-Agent`, send that identity as `Api-User-Agent` instead (this page does). Errors are `application/problem+json` (RFC 9457) with `success: false`. Rate limits: per user and per client IP, per endpoint; anime and manga share a budget. When the operator sets `PUBLIC_LISTS=true`, `/v1/users/{name}/…` reads another user's visible entries (without `personal_rating`, `notes`, `is_visible`) and public profile; otherwise those paths are 404. Apps get tokens from the OAuth 2.0 endpoints under `/oauth` (authorization code with PKCE S256, refresh, revocation, introspection; metadata at `/.well-known/oauth-authorization-server`), which are outside the /v1 pipeline and answer errors as the OAuth RFCs say.",
      )
      .setVersion(packageVersion())
      .setLicense('MIT', 'https://opensource.org/licenses/MIT')
      .addServer('/', 'This server')
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          // addBearerAuth's default claims JWT; this service's own tokens are opaque.
          bearerFormat: undefined,
          description:
            "An opaque access token of this service (from the OAuth endpoints or the admin CLI; revoked at once when revoked; not a JWT, nothing to decode), or, when the operator configured the company's identity provider (AUTH_JWT_ISSUER), a JWT access token it signed: checked against its published keys, issuer and audience, with the scopes in its `scope` or `scp` claim. Such a JWT is revoked by its issuer and valid until its `exp`.",
        },
        BEARER_SECURITY,
      )
      .addOAuth2(
        {
          type: 'oauth2',
          description:
            'How apps get the bearer token: authorization code with PKCE (S256). Each operation lists the scope it needs. The /oauth endpoints are outside the /v1 pipeline. On the Swagger UI page at /docs, "Authorize" runs this flow with the public client the operator registered for the page (redirect URI /docs/oauth2-redirect.html).',
          flows: {
            authorizationCode: {
              authorizationUrl: '/oauth/authorize',
              tokenUrl: '/oauth/token',
              refreshUrl: '/oauth/token',
              scopes: SCOPE_DESCRIPTIONS,
            },
          },
        },
        OAUTH2_SECURITY,
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
  completeDocument(document);
  return document;
}

/**
 * What the decorators cannot say once per route: the headers every response carries, the statuses
 * every /v1 operation can answer, problem+json bodies with an example per status, `security: []`
 * on public operations and an example on every success body.
 */
export function completeDocument(document: OpenAPIObject): void {
  document.components = document.components ?? {};
  document.components.schemas = { ...document.components.schemas, Problem: PROBLEM_SCHEMA };
  document.components.headers = { ...document.components.headers, ...HEADERS };
  const schemas = document.components.schemas;

  for (const [path, pathItem] of Object.entries(document.paths)) {
    const api = path.startsWith('/v1/');
    const oauthJson = /^\/oauth\/(token|revoke|introspect)$/.test(path);
    // The scrobble receiver (contract §21) answers its errors as problem+json too.
    const problems = api || path.startsWith('/scrobble/');
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      // No security requirement means "public", said explicitly so tools don't assume a default.
      operation.security = operation.security ?? [];
      if (api) addApiStatuses(operation, method);
      if (operation.requestBody) addEncodingStatus(operation);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || '$ref' in response) continue;
        const code = Number(status);
        response.description = response.description || STATUS_DESCRIPTIONS[code] || 'Success';
        response.headers = {
          ...headersOf(path, method, code, { api, oauthJson }),
          ...response.headers,
        };
        // 415 comes from refuseEncodedBodies as problem+json on every route.
        if ((problems && code >= 400) || code === 415) {
          response.content = {
            'application/problem+json': {
              schema: { $ref: '#/components/schemas/Problem' },
              examples: problemExamples(code, operation),
            },
          };
        }
        for (const media of Object.values(response.content ?? {})) {
          if (media.example === undefined && media.examples === undefined && media.schema) {
            const example = exampleOf(media.schema, schemas);
            if (example !== undefined) media.example = example;
          }
        }
      }
    }
  }
}

const PROBLEM_SCHEMA: SchemaObject = {
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
};

const integerHeader = (description: string): HeaderObject => ({
  description,
  schema: { type: 'integer', minimum: 0 },
});
const stringHeader = (description: string): HeaderObject => ({
  description,
  schema: { type: 'string' },
});

const HEADERS: Record<string, HeaderObject> = {
  XRequestId: stringHeader(
    'Identifies this request in the server log: the incoming `X-Request-Id` when it is 1 to 128 characters of `A-Za-z0-9._-`, a new id otherwise',
  ),
  RateLimitLimit: integerHeader(
    'Requests allowed in the window (per user or per client IP) with the least left',
  ),
  RateLimitRemaining: integerHeader('Requests left in that window'),
  RateLimitReset: integerHeader('Whole seconds until that window resets'),
  RetryAfter: integerHeader('Whole seconds to wait before trying again (at least 1)'),
  WWWAuthenticate: stringHeader(
    'The authentication challenge (RFC 6750 for bearer tokens, RFC 7617 for client credentials)',
  ),
  CacheControl: stringHeader(
    '`no-store`: not to be cached (the answer holds credentials, or depends on the host the request named)',
  ),
  Pragma: stringHeader('`no-cache`, for HTTP/1.0 caches'),
  Location: stringHeader('Where the browser goes next: the client’s redirect_uri with the result'),
  SetCookie: stringHeader(
    '`oauth_csrf`: the CSRF token the form posts back (HttpOnly, SameSite=Lax)',
  ),
};
const ref = (name: keyof typeof HEADERS): ReferenceObject => ({
  $ref: `#/components/headers/${name}`,
});

function headersOf(
  path: string,
  method: string,
  status: number,
  kind: { api: boolean; oauthJson: boolean },
): Record<string, ReferenceObject> {
  const headers: Record<string, ReferenceObject> = { 'X-Request-Id': ref('XRequestId') };
  if (kind.api) {
    headers['RateLimit-Limit'] = ref('RateLimitLimit');
    headers['RateLimit-Remaining'] = ref('RateLimitRemaining');
    headers['RateLimit-Reset'] = ref('RateLimitReset');
    if (status === 403) headers['WWW-Authenticate'] = ref('WWWAuthenticate');
    if (status === 403 || status === 429 || status === 503)
      headers['Retry-After'] = ref('RetryAfter');
  }
  if (path === '/.well-known/oauth-authorization-server') {
    headers['Cache-Control'] = ref('CacheControl');
  }
  // Every 401 carries a challenge (RFC 9110 §11.6.1).
  if (status === 401) headers['WWW-Authenticate'] = ref('WWWAuthenticate');
  if (kind.oauthJson) {
    headers['Cache-Control'] = ref('CacheControl');
    headers.Pragma = ref('Pragma');
  }
  if (path === '/oauth/authorize') {
    headers['Cache-Control'] = ref('CacheControl');
    headers.Pragma = ref('Pragma');
    if (status === 302 || status === 303) headers.Location = ref('Location');
    if (method === 'get' && status === 200) headers['Set-Cookie'] = ref('SetCookie');
    if (status === 429) headers['Retry-After'] = ref('RetryAfter');
  }
  return headers;
}

const STATUS_DESCRIPTIONS: Record<number, string> = {
  200: 'Success',
  400: 'Invalid path, query or body',
  405: 'The path exists, but not with this method: `Allow` lists the methods it has',
  408: 'The request was not received in full within REQUEST_TIMEOUT_SECONDS',
  431: 'The request header block is too large',
  500: 'An unexpected error: logged with the request id, nothing internal in the body',
  503: 'The database does not answer (DATABASE_TIMEOUT_MS), or the server is shutting down',
};

/** Statuses any /v1 operation can answer, whatever the route declares (contract §2, §3, §16). */
function addApiStatuses(operation: OperationObject, method: string): void {
  const add = (status: number) => {
    operation.responses[status] = operation.responses[status] ?? {
      description: STATUS_DESCRIPTIONS[status],
    };
  };
  for (const status of [400, 405, 408, 431, 500, 503]) add(status);
  if (method === 'put') add(413);
}

const ENCODED_BODY = 'the body has a Content-Encoding other than identity';

/** Every body is refused when encoded, unless the route decodes it (refuseEncodedBodies). */
function addEncodingStatus(operation: OperationObject): void {
  const response = operation.responses[415];
  if (!response) {
    operation.responses[415] = {
      description: `Unsupported: ${ENCODED_BODY} (send it unencoded)`,
    };
  } else if (!('$ref' in response) && !/Content-Encoding/.test(response.description)) {
    response.description = `${response.description}, or ${ENCODED_BODY}`;
  }
}

const API_EXAMPLES: Record<number, Record<string, { summary: string; value: ProblemDetails }>> = {
  400: {
    invalidParameter: {
      summary: 'Bad path or query value',
      value: problemBody(
        400,
        'id must be a positive integer below 2^31',
        PROBLEMS.invalidParameter,
      ),
    },
  },
  401: {
    missing: {
      summary: 'No bearer token',
      value: problemBody(401, 'Send an access token as "Authorization: Bearer <token>"'),
    },
    invalid: {
      summary: 'Unknown, expired or revoked token',
      value: problemBody(
        401,
        'The access token is malformed, unknown, expired or revoked',
        PROBLEMS.invalidToken,
      ),
    },
  },
  403: {
    userAgent: {
      summary: 'Generic User-Agent',
      value: problemBody(
        403,
        'Rejected: "curl" names a generic HTTP tool or library, not your application. Identify your application as <AppName>/<version> (<contact>) in User-Agent (browsers: in Api-User-Agent), e.g. "ListSync/2.1.0 (admin@listsync.example)". After 9 more rejected requests from this address within 600 seconds, it is denied every request for 900 seconds.',
        PROBLEMS.userAgent,
      ),
    },
    ipDenied: {
      summary: 'Address denied for a while (with Retry-After)',
      value: problemBody(
        403,
        'This address sent too many requests without a valid User-Agent and is denied for 840 more seconds',
        PROBLEMS.ipDenied,
      ),
    },
  },
  404: {
    notFound: {
      summary: 'No such title',
      value: problemBody(404, 'No anime with id 999999 in the catalog'),
    },
  },
  405: {
    methodNotAllowed: {
      summary: 'Method not allowed',
      value: problemBody(405, 'POST is not allowed here; allowed: GET, PUT, DELETE'),
    },
  },
  408: {
    timeout: {
      summary: 'Request timeout',
      value: problemBody(408, 'The request was not received in time'),
    },
  },
  410: {
    expired: {
      summary: 'Cursor expired',
      value: problemBody(
        410,
        'This cursor is older than the deletions kept (SYNC_RETENTION_DAYS): sync again without since',
      ),
    },
  },
  413: {
    tooLarge: {
      summary: 'Body too large',
      value: problemBody(413, 'The request body is larger than 16384 bytes'),
    },
  },
  415: {
    unsupported: {
      summary: 'Not JSON',
      value: problemBody(415, 'Content-Type must be application/json'),
    },
    encoded: {
      summary: 'Encoded body',
      value: problemBody(
        415,
        'Content-Encoding "br" is not supported here: send the body unencoded',
      ),
    },
  },
  429: {
    rateLimited: {
      summary: 'Rate limit exceeded (with Retry-After)',
      value: problemBody(429, 'Rate limit exceeded for this endpoint; retry in 37 seconds'),
    },
  },
  431: {
    headersTooLarge: {
      summary: 'Header block too large',
      value: problemBody(431, 'The request header block is too large'),
    },
  },
  500: {
    internal: {
      summary: 'Unexpected error',
      value: problemBody(
        500,
        'An unexpected error occurred; quote the X-Request-Id header when reporting it',
      ),
    },
  },
  503: {
    unavailable: {
      summary: 'Database unavailable',
      value: problemBody(503, 'The database does not answer; try again shortly'),
    },
  },
};

function problemExamples(
  status: number,
  operation: OperationObject,
): Record<string, { summary: string; value: ProblemDetails }> {
  const examples = { ...(API_EXAMPLES[status] ?? {}) };
  if (status === 400 && operation.requestBody) {
    examples.validation = {
      summary: 'Invalid body: every offending field is named',
      value: problemBody(
        400,
        'public_rating must be an integer from 0 to 10; notes must be a string',
        PROBLEMS.validation,
        [
          { field: 'public_rating', message: 'must be an integer from 0 to 10' },
          { field: 'notes', message: 'must be a string' },
        ],
      ),
    };
  }
  if (status === 403) {
    const scope = (operation.security ?? [])
      .map((requirement) => requirement[OAUTH2_SECURITY])
      .find((scopes) => scopes !== undefined)?.[0];
    if (scope) {
      examples.insufficientScope = {
        summary: 'Token without the scope',
        value: problemBody(
          403,
          `The access token lacks the "${scope}" scope`,
          PROBLEMS.insufficientScope,
        ),
      };
    }
  }
  if (Object.keys(examples).length === 0) {
    examples.error = { summary: 'Error', value: problemBody(status, 'See the description') };
  }
  return examples;
}

/** An example built from the `example`s of a schema's properties, following $refs. */
function exampleOf(
  schema: SchemaObject | ReferenceObject,
  schemas: Record<string, SchemaObject | ReferenceObject>,
  depth = 0,
): unknown {
  if (depth > 8) return undefined;
  if ('$ref' in schema) {
    const target = schemas[schema.$ref.replace('#/components/schemas/', '')];
    return target ? exampleOf(target, schemas, depth + 1) : undefined;
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.type === 'array' && schema.items) {
    const item = exampleOf(schema.items, schemas, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (schema.properties) {
    const example: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      const value = exampleOf(property, schemas, depth + 1);
      if (value !== undefined) example[name] = value;
    }
    return example;
  }
  if (schema.enum?.length) return schema.enum[0];
  const first = schema.allOf?.[0] ?? schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (first) return exampleOf(first, schemas, depth + 1);
  if (schema.nullable) return null;
  return PLAIN_EXAMPLES[String(schema.type)];
}

const PLAIN_EXAMPLES: Record<string, unknown> = {
  integer: 0,
  number: 0,
  boolean: false,
  string: '',
  object: {},
};
