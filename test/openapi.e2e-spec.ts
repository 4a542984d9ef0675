import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { SCOPES } from '../src/auth/scopes';
import type { ProfileView } from '../src/profile/profile.dto';
import { anime, createUserWithToken, importTitles } from './factories';
import { api, createTestApp, resetDatabase, USER_AGENT } from './utils/test-app';

interface Operation {
  operationId: string;
  summary?: string;
  parameters?: {
    name: string;
    in: string;
    required?: boolean;
    example?: unknown;
    examples?: unknown;
    schema?: { example?: unknown };
  }[];
  security?: Record<string, string[]>[];
  responses: Record<
    string,
    {
      description?: string;
      headers?: Record<string, unknown>;
      content?: Record<string, { example?: unknown; examples?: Record<string, unknown> }>;
    }
  >;
}
type Document = {
  info: { version: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, unknown>> };
};

/** Headers a client may act on: each one a response carries must be in the document. */
const WATCHED_HEADERS = [
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'www-authenticate',
  'cache-control',
  'pragma',
  'location',
  'set-cookie',
  'etag',
  'link',
];

describe('OpenAPI document (issue 12 points 14-17)', () => {
  let app: NestFastifyApplication;
  let document: Document;

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  /** The status is documented for the operation, and so is every watched header it carries. */
  const expectDocumented = (
    path: string,
    method: string,
    response: { status: number; headers: Record<string, string | string[] | undefined> },
  ) => {
    const operation = document.paths[path]?.[method];
    expect({ path, method, operation: operation !== undefined }).toEqual({
      path,
      method,
      operation: true,
    });
    const documented = operation.responses[String(response.status)];
    expect({ path, method, status: response.status, documented: documented !== undefined }).toEqual(
      { path, method, status: response.status, documented: true },
    );
    const names = Object.keys(documented.headers ?? {}).map((name) => name.toLowerCase());
    const sent = WATCHED_HEADERS.filter((name) => response.headers[name] !== undefined);
    expect({
      path,
      method,
      status: response.status,
      undocumented: sent.filter((h) => !names.includes(h)),
    }).toEqual({
      path,
      method,
      status: response.status,
      undocumented: [],
    });
  };

  beforeAll(async () => {
    // Every optional module on, as `npm run openapi:check` exports it.
    app = await createTestApp({ PUBLIC_LISTS: 'true', PUBLIC_CARDS: 'true' });
    document = (await request(app.getHttpServer()).get('/docs/openapi.json').expect(200))
      .body as Document;
  });

  beforeEach(async () => {
    await resetDatabase(app);
  });

  afterAll(async () => {
    await app.close();
  });

  it('has unique operationIds, the package version and a server', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/v1/my/manga/{id}/ratings'].put.operationId).toBe('putMangaRating');
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
    expect(document.info.version).toBe(pkg.version);
    expect(document.servers?.length).toBeGreaterThan(0);
  });

  it('puts the right article before a media type: "an anime", "a manga"', () => {
    const text = JSON.stringify(document);
    expect(text.match(/\ba anime\b|\ban manga\b/gi) ?? []).toEqual([]);
    expect(document.paths['/v1/my/anime/{id}/ratings'].put.summary).toContain('an anime title');
    expect(document.paths['/v1/my/manga/{id}/ratings'].put.summary).toContain('a manga title');
  });

  it('declares security on every operation: the oauth2 scope on /v1, none on public ones', () => {
    for (const { path, method, operation } of operations()) {
      expect({ path, method, security: Array.isArray(operation.security) }).toEqual({
        path,
        method,
        security: true,
      });
      // The card (contract §22) is public: no token.
      if (path === '/v1/users/{name}/card.svg') {
        expect(operation.security).toEqual([]);
      } else if (path.startsWith('/v1/')) {
        const mediaType = /^\/v1\/(?:my|users\/\{name\})\/(anime|manga)\//.exec(path)?.[1];
        const scope =
          mediaType === 'anime'
            ? SCOPES.anime
            : mediaType === 'manga'
              ? SCOPES.manga
              : // Scrobblers write anime (contract §21).
                /^\/v1\/my\/scrobble/.test(path)
                ? SCOPES.anime
                : SCOPES.profile;
        expect(operation.security).toEqual([{ bearer: [] }, { oauth2: [scope] }]);
      }
    }
    expect(document.paths['/health'].get.security).toEqual([]);
    expect(document.paths['/.well-known/oauth-authorization-server'].get.security).toEqual([]);
  });

  it('does not call the bearer tokens JWTs: the service issues opaque ones (issue 30 item 9)', () => {
    const bearer = document.components.securitySchemes.bearer;
    expect(bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(bearer).not.toHaveProperty('bearerFormat');
  });

  it('declares WWW-Authenticate on every 401 of every operation (issue 30 item 9)', () => {
    const unauthorized = operations().filter(({ operation }) => operation.responses['401']);
    for (const { path, method, operation } of unauthorized) {
      const headers = Object.keys(operation.responses['401'].headers ?? {});
      expect({ path, method, challenge: headers.includes('WWW-Authenticate') }).toEqual({
        path,
        method,
        challenge: true,
      });
    }
    const paths = unauthorized.map(({ path, method }) => `${method} ${path}`);
    expect(paths).toEqual(
      expect.arrayContaining(['get /metrics', 'post /oauth/token', 'get /v1/my/profile']),
    );
  });

  it('pre-fills no optional query parameter in Swagger UI\'s "Try it out" (issue 30 item 7)', () => {
    // Swagger UI fills a parameter's input with its example (or its first examples entry): an
    // optional filter with one would narrow every try of the operation.
    const prefilled = operations().flatMap(({ path, method, operation }) =>
      (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query' && !parameter.required)
        .filter(
          (parameter) =>
            parameter.example !== undefined ||
            parameter.examples !== undefined ||
            parameter.schema?.example !== undefined,
        )
        .map((parameter) => `${method} ${path} ${parameter.name}`),
    );
    expect(prefilled).toEqual([]);
    const status = document.paths['/v1/users/{name}/anime/ratings'].get.parameters?.find(
      (parameter) => parameter.name === 'status',
    );
    expect(status).toMatchObject({ in: 'query', required: false });
  });

  it('gives every response a description, and an example to every body', () => {
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect({ path, method, status, description: Boolean(response.description) }).toEqual({
          path,
          method,
          status,
          description: true,
        });
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (type === 'text/html') continue;
          const example = media.example ?? media.examples;
          expect({ path, method, status, type, example: example !== undefined }).toEqual({
            path,
            method,
            status,
            type,
            example: true,
          });
        }
      }
    }
    const forbidden = document.paths['/v1/my/anime/{id}/ratings'].delete.responses['403'];
    expect(Object.keys(forbidden.content?.['application/problem+json'].examples ?? {})).toEqual(
      expect.arrayContaining(['userAgent', 'ipDenied', 'insufficientScope']),
    );
  });

  it('gives the profile an example that follows the statistics formulas, as in docs/api.md (issue 17 item 4)', () => {
    const apiPage = readFileSync(join(__dirname, '..', 'docs', 'api.md'), 'utf8');
    const documentedProfile = /^#+ Profile\s+```json\n([\s\S]*?)\n```/m.exec(apiPage)?.[1];
    for (const path of ['/v1/my/profile', '/v1/users/{name}/profile']) {
      const example = document.paths[path].get.responses['200'].content?.['application/json']
        .example as ProfileView;
      const { anime, manga } = example.statistics;
      expect(manga.chapters).toBeGreaterThan(0);
      expect(manga.volumes).toBeGreaterThan(0);
      expect(manga.media_minutes).toBe(8 * manga.chapters + 72 * manga.volumes);
      // The example's titles all have 24-minute episodes.
      expect(anime.episodes).toBeGreaterThan(0);
      expect(anime.media_minutes).toBe(24 * anime.episodes);
      for (const statistics of [anime, manga]) {
        expect(statistics.average).toBeGreaterThan(0);
        expect(statistics.average).toBeLessThanOrEqual(100);
        expect(statistics.completed).toBeGreaterThan(0);
      }
      expect(example).toEqual(JSON.parse(documentedProfile ?? 'null'));
    }
  });

  it("gives the statistics examples the profile example's totals, and numbers that agree (contract §22)", () => {
    const profile = document.paths['/v1/my/profile'].get.responses['200'].content?.[
      'application/json'
    ].example as ProfileView;
    for (const mediaType of ['anime', 'manga'] as const) {
      for (const path of [
        `/v1/my/statistics/${mediaType}`,
        `/v1/users/{name}/statistics/${mediaType}`,
      ]) {
        const example = document.paths[path].get.responses['200'].content?.['application/json']
          .example as {
          totals: Record<string, number>;
          scores: { count: number; histogram: Record<string, number> };
          by_status: Record<string, number>;
          by_format: { count: number; minutes: number }[];
          activity?: unknown[];
        };
        expect(example.totals).toEqual(profile.statistics[mediaType]);
        const { by_status: status, totals } = example;
        expect(status.completed).toBe(totals.completed);
        expect(status.ongoing).toBe(totals[mediaType === 'anime' ? 'watching' : 'reading']);
        expect(Object.values(example.scores.histogram).reduce((a, b) => a + b, 0)).toBe(
          example.scores.count,
        );
        expect(example.by_format.reduce((sum, group) => sum + group.minutes, 0)).toBe(
          totals.media_minutes,
        );
        expect(example.activity !== undefined).toBe(path.startsWith('/v1/my/'));
      }
    }
  });

  it('gives each error status examples of its own, whose status is that status', () => {
    const detailsByStatus = new Map<string, Set<string>>();
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const examples = response.content?.['application/problem+json']?.examples ?? {};
        for (const [name, example] of Object.entries(examples)) {
          const value = (example as { value: { status: number; detail: string } }).value;
          expect({ path, method, status, name, value: value.status }).toEqual({
            path,
            method,
            status,
            name,
            value: Number(status),
          });
          const details = detailsByStatus.get(status) ?? new Set<string>();
          detailsByStatus.set(status, details.add(value.detail));
        }
      }
    }
    // No two statuses share an example body.
    const all = [...detailsByStatus.values()].flatMap((details) => [...details]);
    expect(new Set(all).size).toBe(all.length);
    expect([...detailsByStatus.keys()].sort()).toEqual(
      expect.arrayContaining(['400', '401', '403', '404', '429', '500', '503']),
    );
  });

  it('documents every status and header the API actually answers with', async () => {
    await importTitles(app, [anime(1)]);
    const { user, token } = await createUserWithToken(app);
    const { token: mangaOnly } = await createUserWithToken(app, [SCOPES.manga]);
    const server = app.getHttpServer();
    const one = '/v1/my/anime/{id}/ratings';
    const cases: [string, string, () => Promise<request.Response>][] = [
      [one, 'put', () => api(app, token).put('/v1/my/anime/1/ratings', { status: 'completed' })],
      [one, 'get', () => api(app, token).get('/v1/my/anime/1/ratings')],
      [one, 'get', () => api(app).get('/v1/my/anime/1/ratings')],
      [one, 'get', () => api(app, 'not-a-token').get('/v1/my/anime/1/ratings')],
      [one, 'get', () => api(app, mangaOnly).get('/v1/my/anime/1/ratings')],
      [
        one,
        'get',
        () =>
          request(server)
            .get('/v1/my/anime/1/ratings')
            .set('User-Agent', 'curl/8.0')
            .set('Authorization', `Bearer ${token}`),
      ],
      [one, 'get', () => api(app, token).get('/v1/my/anime/999/ratings')],
      [one, 'put', () => api(app, token).put('/v1/my/anime/1/ratings', { status: 'nope' })],
      [
        one,
        'put',
        () =>
          api(app, token).put('/v1/my/anime/1/ratings').set('Content-Type', 'text/plain').send('x'),
      ],
      [
        one,
        'put',
        () =>
          api(app, token)
            .put('/v1/my/anime/1/ratings')
            .set('Content-Type', 'application/json')
            .set('Content-Encoding', 'br')
            .send('{}'),
      ],
      [one, 'delete', () => api(app, token).delete('/v1/my/anime/0/ratings')],
      [one, 'delete', () => api(app, token).delete('/v1/my/anime/1/ratings')],
      ['/v1/my/anime/ratings', 'get', () => api(app, token).get('/v1/my/anime/ratings?limit=1')],
      ['/v1/my/profile', 'get', () => api(app, token).get('/v1/my/profile')],
      [
        '/v1/users/{name}/anime/ratings',
        'get',
        () =>
          api(app, token).get(`/v1/users/${encodeURIComponent(user.name)}/anime/ratings?limit=1`),
      ],
      [
        '/v1/users/{name}/manga/ratings',
        'get',
        () => api(app, token).get('/v1/users/nobody/manga/ratings'),
      ],
      [
        '/v1/users/{name}/manga/ratings',
        'get',
        () => api(app, token).get('/v1/users/nobody/manga/ratings?after=1'),
      ],
      [
        '/v1/users/{name}/profile',
        'get',
        () => api(app, token).get(`/v1/users/${encodeURIComponent(user.name)}/profile`),
      ],
      ['/v1/users/{name}/profile', 'get', () => api(app, mangaOnly).get('/v1/users/x/profile')],
      ['/v1/my/anime/export', 'get', () => api(app, token).get('/v1/my/anime/export')],
      [
        '/v1/my/anime/import',
        'post',
        () =>
          request(server)
            .post('/v1/my/anime/import')
            .set('User-Agent', USER_AGENT)
            .set('Authorization', `Bearer ${token}`)
            .set('Content-Type', 'application/xml')
            .send(
              '<myanimelist><myinfo><user_export_type>1</user_export_type></myinfo></myanimelist>',
            ),
      ],
      [
        '/v1/my/anime/import',
        'post',
        () =>
          request(server)
            .post('/v1/my/anime/import')
            .set('User-Agent', USER_AGENT)
            .set('Authorization', `Bearer ${token}`)
            .set('Content-Type', 'text/plain')
            .send('x'),
      ],
      ['/health', 'get', () => request(server).get('/health')],
      [
        '/oauth/token',
        'post',
        () =>
          request(server)
            .post('/oauth/token')
            .type('form')
            .send({ grant_type: 'authorization_code' }),
      ],
      [
        '/oauth/token',
        'post',
        () =>
          request(server)
            .post('/oauth/token')
            .auth('nobody', 'wrong')
            .type('form')
            .send({ grant_type: 'authorization_code', code: 'x' }),
      ],
      [
        '/oauth/token',
        'post',
        () =>
          request(server)
            .post('/oauth/token')
            .type('form')
            .set('Content-Encoding', 'br')
            .send('grant_type=authorization_code'),
      ],
      ['/oauth/authorize', 'get', () => request(server).get('/oauth/authorize?client_id=nobody')],
      [
        '/.well-known/oauth-authorization-server',
        'get',
        () => request(server).get('/.well-known/oauth-authorization-server'),
      ],
    ];
    const seen = new Set<number>();
    for (const [path, method, send] of cases) {
      const response = await send();
      seen.add(response.status);
      expectDocumented(path, method, response);
    }
    // The cases above do reach these statuses, so the checks above were not vacuous.
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 400, 401, 403, 404, 415]));
    expect(USER_AGENT).toMatch(/^\S+\/\S+ \(.+\)$/);
  });
});
