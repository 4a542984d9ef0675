import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccessToken } from '../src/auth/access-token.entity';
import { IpDenialRecords } from '../src/auth/ip-denial-records';
import { SCOPES } from '../src/auth/scopes';
import { hashToken, TokensService } from '../src/auth/tokens.service';
import type { User } from '../src/users/user.entity';
import { anime, createUser, importTitles, issueToken, manga } from './factories';
import { expectProblem } from './utils/problem';
import { createTestApp, resetDatabase, USER_AGENT, useTestApp } from './utils/test-app';
import { sleep } from './utils/wait';

/**
 * Steps 1-5 of the request pipeline (contract §2) and the rules behind them (contract §4):
 * IP denial, the User-Agent rule, bearer tokens with RFC 6750 challenges, mediaType, scopes.
 * Expected headers are written out literally: they are the contract, not the code's constants.
 */

const NO_CREDENTIALS_CHALLENGE = 'Bearer realm="ratings"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="ratings", error="invalid_token"';
const EXPECTED_UA_FORM = '<AppName>/<version> (<contact>)';
const GENERIC_UA = 'curl/8.0 (ops@example.com)';
const PUT_BODY = { status: 'completed' };

type Method = 'get' | 'put' | 'delete';

interface Route {
  method: Method;
  path: string;
  /** The scope the route needs, exactly as the insufficient_scope challenge must name it. */
  scope: string;
  body?: unknown;
}

/** Every API endpoint of the spec, for both media types. */
const ROUTES: Route[] = [
  { method: 'get', path: '/v1/my/anime/1/ratings', scope: 'ratings.anime' },
  { method: 'get', path: '/v1/my/anime/ratings', scope: 'ratings.anime' },
  { method: 'put', path: '/v1/my/anime/1/ratings', scope: 'ratings.anime', body: PUT_BODY },
  { method: 'delete', path: '/v1/my/anime/1/ratings', scope: 'ratings.anime' },
  { method: 'get', path: '/v1/my/manga/1/ratings', scope: 'ratings.manga' },
  { method: 'get', path: '/v1/my/manga/ratings', scope: 'ratings.manga' },
  { method: 'put', path: '/v1/my/manga/1/ratings', scope: 'ratings.manga', body: PUT_BODY },
  { method: 'delete', path: '/v1/my/manga/1/ratings', scope: 'ratings.manga' },
  { method: 'get', path: '/v1/my/profile', scope: 'user.profile' },
];

/** The rating endpoints with a `{mediaType}` that is neither anime nor manga. */
const UNKNOWN_MEDIA_TYPE_ROUTES: Omit<Route, 'scope'>[] = [
  { method: 'get', path: '/v1/my/books/ratings' },
  { method: 'get', path: '/v1/my/books/1/ratings' },
  { method: 'put', path: '/v1/my/books/1/ratings', body: PUT_BODY },
  { method: 'delete', path: '/v1/my/books/1/ratings' },
  { method: 'get', path: '/v1/my/ANIME/ratings' },
  { method: 'get', path: '/v1/my/mangas/1/ratings' },
];

const routeName = (route: { method: Method; path: string }) =>
  `${route.method.toUpperCase()} ${route.path}`;

interface Caller {
  /** A valid application User-Agent unless given; `null` sends no User-Agent at all. */
  userAgent?: string | null;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** A raw Authorization header; wins over `token`. */
  authorization?: string;
  forwardedFor?: string;
  /** Sent as `Api-User-Agent` (the identity of browser clients, contract §17). */
  apiUserAgent?: string;
}

function send(
  app: NestFastifyApplication,
  method: Method,
  path: string,
  caller: Caller = {},
  body?: unknown,
): request.Test {
  const test = request(app.getHttpServer())[method](path);
  const userAgent = caller.userAgent === undefined ? USER_AGENT : caller.userAgent;
  if (userAgent !== null) void test.set('User-Agent', userAgent);
  const authorization =
    caller.authorization ?? (caller.token === undefined ? undefined : `Bearer ${caller.token}`);
  if (authorization !== undefined) void test.set('Authorization', authorization);
  if (caller.forwardedFor !== undefined) void test.set('X-Forwarded-For', caller.forwardedFor);
  if (caller.apiUserAgent !== undefined) void test.set('Api-User-Agent', caller.apiUserAgent);
  if (body !== undefined) {
    void test.set('Content-Type', 'application/json').send(JSON.stringify(body));
  }
  return test;
}

function sendTo(
  app: NestFastifyApplication,
  route: { method: Method; path: string; body?: unknown },
  caller: Caller = {},
): request.Test {
  return send(app, route.method, route.path, caller, route.body);
}

function expectChallenge(response: request.Response, challenge: string): void {
  expectProblem(response, 401);
  expect(response.headers['www-authenticate']).toBe(challenge);
}

function expectUserAgentRejected(response: request.Response): void {
  expectProblem(response, 403);
  expect(response.body.detail).toContain(EXPECTED_UA_FORM);
  expect(response.headers['www-authenticate']).toBeUndefined();
  expect(response.headers['retry-after']).toBeUndefined();
}

function expectIpDenied(response: request.Response, denySeconds: number): void {
  expectProblem(response, 403);
  expect(response.headers['retry-after']).toMatch(/^\d+$/);
  const retryAfter = Number(response.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(denySeconds);
  expect(response.headers['www-authenticate']).toBeUndefined();
}

function expectInsufficientScope(response: request.Response, scope: string): void {
  expectProblem(response, 403);
  expect(response.headers['www-authenticate']).toBe(
    `Bearer error="insufficient_scope", scope="${scope}"`,
  );
  expect(response.headers['retry-after']).toBeUndefined();
}

/** Every scope but `scope`: a token that can do everything except what the route needs. */
function allScopesBut(scope: string): string[] {
  return Object.values(SCOPES).filter((s) => s !== scope);
}

/** Sends `count` requests with rejected User-Agents and checks each was refused. */
async function sendRejectedUserAgents(
  app: NestFastifyApplication,
  count: number,
  caller: Caller = {},
): Promise<void> {
  const rejected = [null, GENERIC_UA, 'ListSync/2.1.0', 'Mozilla/5.0 (X11; Linux x86_64)'];
  for (let i = 0; i < count; i++) {
    const response = await send(app, 'get', '/v1/my/anime/ratings', {
      ...caller,
      userAgent: rejected[i % rejected.length],
    });
    expectProblem(response, 403);
  }
}

describe('access control (contract §2 steps 1-5, §4)', () => {
  let app: NestFastifyApplication;
  let user: User;
  /** Holds every scope. */
  let token: string;

  beforeAll(async () => {
    // Denial off (as in the test defaults), so that the many rejected User-Agents here deny nothing.
    app = await createTestApp({ UA_DENY_THRESHOLD: '0' });
  });

  afterAll(async () => {
    await app.close();
  });

  beforeEach(async () => {
    await resetDatabase(app);
    await importTitles(app, [anime(1), manga(1)]);
    user = await createUser(app);
    token = await issueToken(app, user);
  });

  describe('a valid request passes every check', () => {
    it('is served with a valid User-Agent and a token holding the scope', async () => {
      const response = await send(app, 'get', '/v1/my/anime/ratings', { token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
    });

    it('each endpoint is served with a token holding only the scope it needs', async () => {
      const animeOnly = await issueToken(app, user, [SCOPES.anime]);
      const mangaOnly = await issueToken(app, user, [SCOPES.manga]);
      const profileOnly = await issueToken(app, user, [SCOPES.profile]);
      const calls: [Method, string, string, unknown?][] = [
        ['put', '/v1/my/anime/1/ratings', animeOnly, PUT_BODY],
        ['get', '/v1/my/anime/1/ratings', animeOnly],
        ['get', '/v1/my/anime/ratings', animeOnly],
        ['delete', '/v1/my/anime/1/ratings', animeOnly],
        ['put', '/v1/my/manga/1/ratings', mangaOnly, PUT_BODY],
        ['get', '/v1/my/manga/1/ratings', mangaOnly],
        ['get', '/v1/my/manga/ratings', mangaOnly],
        ['delete', '/v1/my/manga/1/ratings', mangaOnly],
        ['get', '/v1/my/profile', profileOnly],
      ];
      for (const [method, path, scopedToken, body] of calls) {
        const response = await send(app, method, path, { token: scopedToken }, body);
        expect({ call: `${method.toUpperCase()} ${path}`, status: response.status }).toEqual({
          call: `${method.toUpperCase()} ${path}`,
          status: 200,
        });
      }
    });

    it('accepts the bearer scheme case-insensitively (RFC 7235)', async () => {
      for (const scheme of ['bearer', 'BEARER']) {
        const response = await send(app, 'get', '/v1/my/anime/ratings', {
          authorization: `${scheme} ${token}`,
        });
        expect(response.status).toBe(200);
      }
    });
  });

  describe('order of the checks', () => {
    it('step 2 before 3: a rejected User-Agent without a token is 403, not 401', async () => {
      for (const userAgent of [null, GENERIC_UA, 'ListSync']) {
        expectUserAgentRejected(await send(app, 'get', '/v1/my/anime/ratings', { userAgent }));
      }
    });

    it('step 2 before 3: a rejected User-Agent with a bad token is 403', async () => {
      const response = await send(app, 'get', '/v1/my/anime/ratings', {
        userAgent: GENERIC_UA,
        token: 'not-a-token',
      });
      expectUserAgentRejected(response);
    });

    it('step 2 before 4: a rejected User-Agent on an unknown mediaType is 403', async () => {
      for (const route of UNKNOWN_MEDIA_TYPE_ROUTES) {
        expectUserAgentRejected(await sendTo(app, route, { userAgent: GENERIC_UA, token }));
      }
    });

    it('step 2 before 5: a rejected User-Agent with a token lacking the scope is 403 for the User-Agent', async () => {
      const mangaOnly = await issueToken(app, user, [SCOPES.manga]);
      const response = await send(app, 'get', '/v1/my/anime/ratings', {
        userAgent: GENERIC_UA,
        token: mangaOnly,
      });
      expectUserAgentRejected(response);
    });

    it('step 2 before 7: a rejected User-Agent on an invalid request is 403', async () => {
      expectUserAgentRejected(
        await send(app, 'get', '/v1/my/anime/abc/ratings', { userAgent: GENERIC_UA, token }),
      );
      expectUserAgentRejected(
        await send(app, 'put', '/v1/my/anime/1/ratings', { userAgent: GENERIC_UA, token }).set(
          'Content-Type',
          'text/plain',
        ),
      );
    });

    it('step 3 before 4: no token on an unknown mediaType is 401, a bad one 401 invalid_token', async () => {
      for (const route of UNKNOWN_MEDIA_TYPE_ROUTES) {
        expectChallenge(await sendTo(app, route), NO_CREDENTIALS_CHALLENGE);
        expectChallenge(
          await sendTo(app, route, { token: 'unknown-token' }),
          INVALID_TOKEN_CHALLENGE,
        );
      }
    });

    it('step 3 before 7: no token on an invalid request is 401', async () => {
      expectChallenge(await send(app, 'get', '/v1/my/anime/abc/ratings'), NO_CREDENTIALS_CHALLENGE);
      expectChallenge(
        await send(app, 'get', '/v1/my/anime/1/ratings?use_external_id=maybe'),
        NO_CREDENTIALS_CHALLENGE,
      );
      expectChallenge(
        await send(app, 'get', '/v1/my/anime/999/ratings', { token: 'unknown-token' }),
        INVALID_TOKEN_CHALLENGE,
      );
      expectChallenge(
        await send(app, 'put', '/v1/my/anime/1/ratings').set('Content-Type', 'text/plain'),
        NO_CREDENTIALS_CHALLENGE,
      );
      expectChallenge(
        await send(app, 'put', '/v1/my/anime/1/ratings', {}, { status: 'nonsense', bogus: 1 }),
        NO_CREDENTIALS_CHALLENGE,
      );
    });

    it('step 4 before 5: a valid token lacking every rating scope on an unknown mediaType is 404', async () => {
      const profileOnly = await issueToken(app, user, [SCOPES.profile]);
      for (const route of UNKNOWN_MEDIA_TYPE_ROUTES) {
        const response = await sendTo(app, route, { token: profileOnly });
        expectProblem(response, 404);
        expect(response.headers['www-authenticate']).toBeUndefined();
      }
    });

    it('step 4: a valid token with every scope on an unknown mediaType is 404', async () => {
      for (const route of UNKNOWN_MEDIA_TYPE_ROUTES) {
        expectProblem(await sendTo(app, route, { token }), 404);
      }
    });

    it('step 4 before 7: an unknown mediaType with an invalid id or Content-Type is 404', async () => {
      expectProblem(await send(app, 'get', '/v1/my/books/abc/ratings', { token }), 404);
      expectProblem(
        await send(app, 'put', '/v1/my/books/1/ratings', { token }).set(
          'Content-Type',
          'text/plain',
        ),
        404,
      );
    });

    it('step 5 before 7: a token lacking the scope is 403 insufficient_scope on an invalid request', async () => {
      const mangaOnly = await issueToken(app, user, [SCOPES.manga]);
      const caller = { token: mangaOnly };
      expectInsufficientScope(
        await send(app, 'get', '/v1/my/anime/abc/ratings', caller),
        'ratings.anime',
      );
      expectInsufficientScope(
        await send(app, 'get', '/v1/my/anime/0/ratings?use_external_id=maybe', caller),
        'ratings.anime',
      );
      expectInsufficientScope(
        await send(app, 'get', '/v1/my/anime/999/ratings', caller),
        'ratings.anime',
      );
      expectInsufficientScope(
        await send(app, 'put', '/v1/my/anime/1/ratings', caller).set('Content-Type', 'text/plain'),
        'ratings.anime',
      );
      expectInsufficientScope(
        await send(app, 'put', '/v1/my/anime/1/ratings', caller, { status: 'nonsense', bogus: 1 }),
        'ratings.anime',
      );
      expectInsufficientScope(
        await send(app, 'delete', '/v1/my/anime/999/ratings', caller),
        'ratings.anime',
      );
    });
  });

  describe('step 5: scopes', () => {
    it.each(ROUTES.map((route) => [routeName(route), route] as const))(
      '%s: a token without the scope gets 403 insufficient_scope',
      async (_name, route) => {
        const response = await sendTo(app, route, {
          token: await issueToken(app, user, allScopesBut(route.scope)),
        });
        expectInsufficientScope(response, route.scope);
      },
    );

    it('the challenge names the scope of the endpoint, not the ones the token lacks elsewhere', async () => {
      const profileOnly = await issueToken(app, user, [SCOPES.profile]);
      const anime = await send(app, 'get', '/v1/my/anime/ratings', { token: profileOnly });
      const manga = await send(app, 'get', '/v1/my/manga/ratings', { token: profileOnly });
      expect(anime.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="ratings.anime"',
      );
      expect(manga.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="ratings.manga"',
      );
      const mangaOnly = await issueToken(app, user, [SCOPES.manga]);
      expectInsufficientScope(
        await send(app, 'get', '/v1/my/profile', { token: mangaOnly }),
        'user.profile',
      );
    });
  });

  describe('step 3: bearer token and RFC 6750 challenges', () => {
    it.each(ROUTES.map((route) => [routeName(route), route] as const))(
      '%s: no Authorization header is 401 with a challenge without error code',
      async (_name, route) => {
        expectChallenge(await sendTo(app, route), NO_CREDENTIALS_CHALLENGE);
      },
    );

    it('another scheme (Basic, Token) or an empty Authorization header counts as no credentials', async () => {
      for (const authorization of ['Basic dXNlcjpwYXNzd29yZA==', `Token ${token}`, '']) {
        expectChallenge(
          await send(app, 'get', '/v1/my/anime/ratings', { authorization }),
          NO_CREDENTIALS_CHALLENGE,
        );
      }
    });

    it('a valid token only in the query string is ignored', async () => {
      expectChallenge(
        await send(app, 'get', `/v1/my/anime/ratings?access_token=${token}`),
        NO_CREDENTIALS_CHALLENGE,
      );
      expectChallenge(
        await send(app, 'get', `/v1/my/profile?access_token=${token}`),
        NO_CREDENTIALS_CHALLENGE,
      );
    });

    it('a query access_token next to a valid Authorization header is ignored, not an error', async () => {
      const response = await send(app, 'get', '/v1/my/anime/ratings?access_token=garbage', {
        token,
      });
      expect(response.status).toBe(200);
    });

    it('a valid token in the PUT body is not accepted', async () => {
      const json = await send(
        app,
        'put',
        '/v1/my/anime/1/ratings',
        {},
        { access_token: token, status: 'completed' },
      );
      expectChallenge(json, NO_CREDENTIALS_CHALLENGE);
      const form = await send(app, 'put', '/v1/my/anime/1/ratings')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(`access_token=${token}&status=completed`);
      expectChallenge(form, NO_CREDENTIALS_CHALLENGE);
      // Nothing was stored behind the 401s.
      const entries = await send(app, 'get', '/v1/my/anime/ratings', { token });
      expect(entries.body).toEqual([]);
    });

    it.each([
      ['"Bearer" alone', 'Bearer'],
      ['"Bearer a b"', 'Bearer a b'],
      ['a valid token followed by junk', 'Bearer TOKEN extra'],
    ])('a malformed bearer credential (%s) is 401 invalid_token', async (_name, template) => {
      const response = await send(app, 'get', '/v1/my/anime/ratings', {
        authorization: template.replace('TOKEN', token),
      });
      expectChallenge(response, INVALID_TOKEN_CHALLENGE);
    });

    it('an unknown token is 401 invalid_token', async () => {
      for (const unknown of ['x', 'A'.repeat(43), `${token}x`, token.slice(1)]) {
        expectChallenge(
          await send(app, 'get', '/v1/my/anime/ratings', { token: unknown }),
          INVALID_TOKEN_CHALLENGE,
        );
      }
    });

    it('an expired token is 401 invalid_token from the next request on', async () => {
      expect((await send(app, 'get', '/v1/my/anime/ratings', { token })).status).toBe(200);
      await app
        .get(DataSource)
        .getRepository(AccessToken)
        .update({ tokenHash: hashToken(token) }, { expiresAt: new Date(Date.now() - 60_000) });
      for (const route of ROUTES) {
        expectChallenge(await sendTo(app, route, { token }), INVALID_TOKEN_CHALLENGE);
      }
    });

    it('a token issued with a ttl of 1 second is refused once the second has passed', async () => {
      const { token: shortLived, expiresAt } = await app
        .get(TokensService)
        .issue(user.name, SCOPES.anime, 1);
      await sleep(Math.max(0, expiresAt.getTime() - Date.now()) + 100);
      expectChallenge(
        await send(app, 'get', '/v1/my/anime/ratings', { token: shortLived }),
        INVALID_TOKEN_CHALLENGE,
      );
    });

    it('revocation takes effect on the very next request, for that token only', async () => {
      const other = await issueToken(app, user);
      expect((await send(app, 'get', '/v1/my/anime/ratings', { token })).status).toBe(200);
      expect(await app.get(TokensService).revoke(token)).toBe(true);
      for (const route of ROUTES) {
        expectChallenge(await sendTo(app, route, { token }), INVALID_TOKEN_CHALLENGE);
      }
      expect((await send(app, 'get', '/v1/my/anime/ratings', { token: other })).status).toBe(200);
    });

    it('a token revoked by another instance is refused on the next request here', async () => {
      expect((await send(app, 'get', '/v1/my/profile', { token })).status).toBe(200);
      const otherInstance = await createTestApp({ UA_DENY_THRESHOLD: '0' });
      try {
        expect(await otherInstance.get(TokensService).revoke(token)).toBe(true);
      } finally {
        await otherInstance.close();
      }
      expectChallenge(await send(app, 'get', '/v1/my/profile', { token }), INVALID_TOKEN_CHALLENGE);
    });

    it('a token of a deleted user is 401 invalid_token', async () => {
      await app.get(DataSource).query('DELETE FROM users WHERE id = ?', [user.id]);
      expectChallenge(await send(app, 'get', '/v1/my/profile', { token }), INVALID_TOKEN_CHALLENGE);
    });
  });

  describe('step 2: User-Agent', () => {
    it.each([
      USER_AGENT,
      'Acme/1.0 (ops@acme.example)',
      'CurlyList/0.9 (https://curlylist.example)',
      'my-app/1.0.0-beta.2 (contact: the ops team, +1 555 0100)',
    ])('accepts %j', async (userAgent) => {
      const response = await send(app, 'get', '/v1/my/anime/ratings', { userAgent, token });
      expect(response.status).toBe(200);
    });

    it.each<[string, string | null]>([
      ['missing', null],
      ['empty', ''],
      ['blank', '   '],
      ['a bare name', 'ListSync'],
      ['no contact', 'ListSync/2.1.0'],
      ['an empty contact', 'ListSync/2.1.0 ()'],
      ['no version', 'ListSync (admin@listsync.example)'],
      ['an empty version', 'ListSync/ (admin@listsync.example)'],
      ['no name', '/2.1.0 (admin@listsync.example)'],
      ['an unclosed contact', 'ListSync/2.1.0 (admin@listsync.example'],
      [
        'a browser',
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      ],
    ])('rejects a User-Agent that is %s with 403', async (_name, userAgent) => {
      expectUserAgentRejected(await send(app, 'get', '/v1/my/anime/ratings', { userAgent, token }));
    });

    it.each([
      'curl/8.0 (x)',
      'CURL/8.4.0 (ops@example.com)',
      'Wget/1.21 (x)',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64)',
      'mozilla/5.0 (x)',
      'python-requests/2.31 (x)',
      'Python-urllib/3.11 (x)',
      'aiohttp/3.9 (x)',
      'httpx/0.27 (x)',
      'axios/1.0 (x)',
      'node-fetch/1.0 (x)',
      'undici/6.0 (x)',
      'node/20.11 (x)',
      'got/14.0 (x)',
      'Go-http-client/1.1 (x)',
      'okhttp/4 (x)',
      'OkHttp/4.12 (x)',
      'Java/17 (x)',
      'Apache-HttpClient/4.5 (x)',
      'PostmanRuntime/7.0 (x)',
      'postmanruntime/7.36 (x)',
      'insomnia/2023.5 (x)',
      'HTTPie/3.2 (x)',
      'libwww-perl/6.72 (x)',
      'Dart/3.2 (x)',
      'Ruby/3.3 (x)',
      'GuzzleHttp/7 (x)',
      'Deno/1.40 (x)',
      'Bun/1.0 (x)',
    ])('rejects the generic name in %j with 403', async (userAgent) => {
      const response = await send(app, 'get', '/v1/my/anime/ratings', { userAgent, token });
      expectUserAgentRejected(response);
    });

    it('the 403 detail explains the expected form with an example', async () => {
      const response = await send(app, 'get', '/v1/my/anime/ratings', { userAgent: null, token });
      expectUserAgentRejected(response);
      expect(response.body.detail).toMatch(/\w+\/[\w.]+ \(.+\)/);
    });

    it('applies to every endpoint', async () => {
      for (const route of ROUTES) {
        expectUserAgentRejected(await sendTo(app, route, { userAgent: GENERIC_UA, token }));
      }
    });
  });

  describe('step 2: Api-User-Agent (browser clients, contract §17)', () => {
    const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36';

    it('a valid Api-User-Agent is the identity: a browser User-Agent beside it is served', async () => {
      for (const route of ROUTES) {
        const response = await sendTo(app, route, {
          userAgent: BROWSER,
          apiUserAgent: USER_AGENT,
          token,
        });
        expect({ route: route.path, status: response.status }).toEqual({
          route: route.path,
          status: 200,
        });
      }
      const alone = await send(app, 'get', '/v1/my/profile', {
        userAgent: null,
        apiUserAgent: USER_AGENT,
        token,
      });
      expect(alone.status).toBe(200);
    });

    it.each([
      ['a generic', 'axios/1.6 (x)', /"axios" names a generic/],
      ['a browser', 'Mozilla/5.0 (X11; Linux x86_64)', /"Mozilla" names a generic/],
      ['a malformed', 'ListSync/2.1.0', /Api-User-Agent header is not of the form/],
      ['an empty', '', /Api-User-Agent header is missing/],
    ])(
      '%s Api-User-Agent is refused even beside a valid User-Agent, naming the header',
      async (_name, apiUserAgent, detail) => {
        const response = await send(app, 'get', '/v1/my/anime/ratings', {
          userAgent: USER_AGENT,
          apiUserAgent,
          token,
        });
        expectUserAgentRejected(response);
        expect(response.body.detail).toMatch(detail);
      },
    );
  });

  describe('outside the pipeline', () => {
    it('/health and /docs need neither token nor User-Agent', async () => {
      for (const userAgent of [null, GENERIC_UA]) {
        const health = await send(app, 'get', '/health', { userAgent });
        expect(health.status).toBe(200);
        expect(health.body).toEqual({ status: 'ok' });
        expect((await send(app, 'get', '/docs', { userAgent })).status).toBe(200);
        expect((await send(app, 'get', '/docs/openapi.json', { userAgent })).status).toBe(200);
      }
    });
  });
});

describe('access control: UA_BLOCKLIST', () => {
  let app: NestFastifyApplication;
  let token: string;

  useTestApp((created) => (app = created), { UA_BLOCKLIST: 'acme,foo' });

  beforeEach(async () => {
    token = await issueToken(app, await createUser(app));
  });

  it.each(['Acme/1.0 (ops@acme.example)', 'ACME/2 (x)', 'foo/0.1 (x)', 'Foo/3 (ops@foo.example)'])(
    'rejects %j, a configured name, case-insensitively',
    async (userAgent) => {
      expectUserAgentRejected(await send(app, 'get', '/v1/my/anime/ratings', { userAgent, token }));
    },
  );

  it('adds to the built-in names instead of replacing them', async () => {
    expectUserAgentRejected(
      await send(app, 'get', '/v1/my/anime/ratings', { userAgent: GENERIC_UA, token }),
    );
  });

  it('compares whole names: other applications are still served', async () => {
    for (const userAgent of [USER_AGENT, 'Acmesync/1.0 (x)', 'Foobar/1.0 (x)']) {
      const response = await send(app, 'get', '/v1/my/anime/ratings', { userAgent, token });
      expect({ userAgent, status: response.status }).toEqual({ userAgent, status: 200 });
    }
  });
});

describe('access control: temporary IP denial (step 1)', () => {
  describe('the 403 of a rejected User-Agent says what comes next', () => {
    let app: NestFastifyApplication;
    let token: string;

    beforeAll(async () => {
      app = await createTestApp({
        UA_DENY_THRESHOLD: '3',
        UA_DENY_WINDOW_SECONDS: '600',
        UA_DENY_SECONDS: '900',
      });
      await resetDatabase(app);
      token = await issueToken(app, await createUser(app));
    });

    afterAll(async () => {
      await app.close();
    });

    it('counts down the rejections left, then says the address is denied; a bad Api-User-Agent counts too', async () => {
      const first = await send(app, 'get', '/v1/my/anime/ratings', {
        userAgent: GENERIC_UA,
        token,
      });
      expectUserAgentRejected(first);
      expect(first.body.detail).toContain(
        'After 2 more rejected requests from this address within 600 seconds, it is denied every request for 900 seconds.',
      );
      const second = await send(app, 'get', '/v1/my/anime/ratings', {
        apiUserAgent: 'Mozilla/5.0 (X11)',
        token,
      });
      expect(second.body.detail).toContain('After 1 more rejected request from this address');
      const third = await send(app, 'get', '/v1/my/anime/ratings', { userAgent: null, token });
      expect(third.body.detail).toContain(
        'this address is now denied every request for 900 seconds',
      );
      expectIpDenied(await send(app, 'get', '/v1/my/anime/ratings', { token }), 900);
    });
  });

  describe('UA_DENY_THRESHOLD=3, UA_DENY_SECONDS=2', () => {
    const DENY_SECONDS = 2;
    const logLines: string[] = [];
    let app: NestFastifyApplication;
    let token: string;

    beforeAll(async () => {
      app = await createTestApp(
        {
          UA_DENY_THRESHOLD: '3',
          UA_DENY_WINDOW_SECONDS: '60',
          UA_DENY_SECONDS: String(DENY_SECONDS),
          RATE_LIMIT_USER_LIMIT: '5',
          LOG_LEVEL: 'warn',
        },
        [],
        { write: (line: string) => void logLines.push(line) },
      );
      await resetDatabase(app);
      token = await issueToken(app, await createUser(app));
    });

    afterAll(async () => {
      await app.close();
    });

    it('denies the address after UA_DENY_THRESHOLD rejected User-Agents until UA_DENY_SECONDS pass', async () => {
      await sendRejectedUserAgents(app, 2, { token });
      expect((await send(app, 'get', '/v1/my/anime/ratings', { token })).status).toBe(200);

      const beforeDenial = Date.now();
      await sendRejectedUserAgents(app, 1, { token });
      const deniedAt = Date.now();

      // Issue 17 item 6: the denial is logged (warn) with the address and the time it ends.
      const denials = logLines
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .filter((record) => record.msg.includes(' denied until '));
      expect(denials).toHaveLength(1);
      expect(denials[0].level).toBe(40);
      const [, address, until] = /^Address (\S+) denied until (\S+): /.exec(denials[0].msg) ?? [];
      const recorded = await app.get(IpDenialRecords).list();
      expect(recorded).toHaveLength(1);
      expect(address).toBe(recorded[0].address);
      expect(until).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(until)).toBeGreaterThanOrEqual(beforeDenial + DENY_SECONDS * 1000);
      expect(Date.parse(until)).toBeLessThanOrEqual(deniedAt + DENY_SECONDS * 1000);

      expectIpDenied(await send(app, 'get', '/v1/my/anime/ratings', { token }), DENY_SECONDS);
      expectIpDenied(await send(app, 'get', '/v1/my/profile', { token }), DENY_SECONDS);
      expectIpDenied(await send(app, 'get', '/v1/my/profile', { token }), DENY_SECONDS);

      // Outside the pipeline, even for a denied address.
      const health = await send(app, 'get', '/health', { userAgent: GENERIC_UA });
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });
      expect((await send(app, 'get', '/docs', { userAgent: GENERIC_UA })).status).toBe(200);
      expect((await send(app, 'get', '/docs/openapi.json', { userAgent: null })).status).toBe(200);

      await sleep(deniedAt + DENY_SECONDS * 1000 + 100 - Date.now());

      expect((await send(app, 'get', '/v1/my/anime/ratings', { token })).status).toBe(200);
      // The denied requests did not count against the rate limits (5 per user per endpoint).
      const profile = await send(app, 'get', '/v1/my/profile', { token });
      expect(profile.status).toBe(200);
      expect(profile.headers['ratelimit-remaining']).toBe('4');
    });
  });

  describe('UA_DENY_THRESHOLD=3, UA_DENY_SECONDS=60', () => {
    let app: NestFastifyApplication;
    let token: string;
    let mangaOnly: string;

    beforeAll(async () => {
      app = await createTestApp({ UA_DENY_THRESHOLD: '3', UA_DENY_SECONDS: '60' });
      await resetDatabase(app);
      const user = await createUser(app);
      token = await issueToken(app, user);
      mangaOnly = await issueToken(app, user, [SCOPES.manga]);
      await sendRejectedUserAgents(app, 3);
    });

    afterAll(async () => {
      await app.close();
    });

    it('step 1 before 2: a denied address is 403 + Retry-After whatever its User-Agent', async () => {
      for (const userAgent of [USER_AGENT, GENERIC_UA, null, 'ListSync']) {
        expectIpDenied(await send(app, 'get', '/v1/my/anime/ratings', { userAgent, token }), 60);
      }
    });

    it('step 1 before 3: a denied address is 403 without a token or with a bad one', async () => {
      expectIpDenied(await send(app, 'get', '/v1/my/anime/ratings'), 60);
      expectIpDenied(await send(app, 'get', '/v1/my/anime/ratings', { token: 'unknown' }), 60);
    });

    it('step 1 before 4, 5 and 7: a denied address is 403 on an unknown mediaType, without the scope, with an invalid id', async () => {
      for (const route of UNKNOWN_MEDIA_TYPE_ROUTES) {
        expectIpDenied(await sendTo(app, route, { token }), 60);
      }
      expectIpDenied(await send(app, 'get', '/v1/my/anime/ratings', { token: mangaOnly }), 60);
      expectIpDenied(await send(app, 'get', '/v1/my/anime/abc/ratings', { token }), 60);
      expectIpDenied(
        await send(app, 'put', '/v1/my/anime/1/ratings', { token }).set(
          'Content-Type',
          'text/plain',
        ),
        60,
      );
    });

    it('applies to every endpoint', async () => {
      for (const route of ROUTES) expectIpDenied(await sendTo(app, route, { token }), 60);
    });

    it('leaves /health and /docs alone', async () => {
      expect((await send(app, 'get', '/health', { userAgent: null })).status).toBe(200);
      expect((await send(app, 'get', '/docs/openapi.json', { userAgent: GENERIC_UA })).status).toBe(
        200,
      );
    });
  });
});

describe('access control: UA_DENY_WINDOW_SECONDS', () => {
  let app: NestFastifyApplication;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp({
      UA_DENY_THRESHOLD: '3',
      UA_DENY_WINDOW_SECONDS: '1',
      UA_DENY_SECONDS: '60',
    });
    await resetDatabase(app);
    token = await issueToken(app, await createUser(app));
  });

  afterAll(async () => {
    await app.close();
  });

  it('counts only the rejected User-Agents within the window', async () => {
    await sendRejectedUserAgents(app, 2);
    await sleep(1100);
    await sendRejectedUserAgents(app, 1);
    expect((await send(app, 'get', '/v1/my/anime/ratings', { token })).status).toBe(200);

    await sendRejectedUserAgents(app, 2);
    expectIpDenied(await send(app, 'get', '/v1/my/anime/ratings', { token }), 60);
  });
});

describe('access control: UA_DENY_THRESHOLD=0', () => {
  let app: NestFastifyApplication;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp({
      UA_DENY_THRESHOLD: '0',
      UA_DENY_WINDOW_SECONDS: '60',
      UA_DENY_SECONDS: '60',
    });
    await resetDatabase(app);
    token = await issueToken(app, await createUser(app));
  });

  afterAll(async () => {
    await app.close();
  });

  it('turns denial off: many rejected User-Agents, then a good request is served', async () => {
    await sendRejectedUserAgents(app, 25, { token });
    const response = await send(app, 'get', '/v1/my/anime/ratings', { token });
    expect(response.status).toBe(200);
    expect(response.headers['retry-after']).toBeUndefined();
  });
});

/** Denies 10.0.0.1 as the proxy reports it, then asks who else is denied. */
async function denyForwardedAddress(app: NestFastifyApplication): Promise<void> {
  await sendRejectedUserAgents(app, 3, { forwardedFor: '10.0.0.1' });
}

describe.each([
  ['unset', undefined],
  ['a proxy that is not the caller', '192.0.2.10, 198.51.100.0/24'],
])('access control: TRUST_PROXY %s', (_name, trustProxy) => {
  let app: NestFastifyApplication;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp({
      UA_DENY_THRESHOLD: '3',
      UA_DENY_SECONDS: '60',
      ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }),
    });
    await resetDatabase(app);
    token = await issueToken(app, await createUser(app));
  });

  afterAll(async () => {
    await app.close();
  });

  it('ignores X-Forwarded-For: the denial is keyed on the socket address', async () => {
    expect(
      (await send(app, 'get', '/v1/my/anime/ratings', { token, forwardedFor: '10.0.0.2' })).status,
    ).toBe(200);
    await denyForwardedAddress(app);
    expectIpDenied(
      await send(app, 'get', '/v1/my/anime/ratings', { token, forwardedFor: '10.0.0.2' }),
      60,
    );
    expectIpDenied(await send(app, 'get', '/v1/my/anime/ratings', { token }), 60);
  });
});

describe.each(['loopback', 'true', '127.0.0.1'])('access control: TRUST_PROXY=%s', (trustProxy) => {
  let app: NestFastifyApplication;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp({
      UA_DENY_THRESHOLD: '3',
      UA_DENY_SECONDS: '60',
      TRUST_PROXY: trustProxy,
    });
    await resetDatabase(app);
    token = await issueToken(app, await createUser(app));
  });

  afterAll(async () => {
    await app.close();
  });

  it('honours X-Forwarded-For from the trusted proxy: only the denied client is denied', async () => {
    await denyForwardedAddress(app);
    expectIpDenied(
      await send(app, 'get', '/v1/my/anime/ratings', { token, forwardedFor: '10.0.0.1' }),
      60,
    );
    expect(
      (await send(app, 'get', '/v1/my/anime/ratings', { token, forwardedFor: '10.0.0.2' })).status,
    ).toBe(200);
    // The proxy itself (a request without X-Forwarded-For) is not denied either.
    expect((await send(app, 'get', '/v1/my/anime/ratings', { token })).status).toBe(200);
  });
});

describe('access control: TRUST_PROXY picks the client from the chain as Express does', () => {
  it('loopback: the nearest untrusted address is the client, so a forged first hop changes nothing', async () => {
    const app = await createTestApp({
      UA_DENY_THRESHOLD: '3',
      UA_DENY_SECONDS: '60',
      TRUST_PROXY: 'loopback',
    });
    try {
      await resetDatabase(app);
      const token = await issueToken(app, await createUser(app));
      await denyForwardedAddress(app);
      expectIpDenied(
        await send(app, 'get', '/v1/my/anime/ratings', {
          token,
          forwardedFor: '10.0.0.2, 10.0.0.1',
        }),
        60,
      );
    } finally {
      await app.close();
    }
  });

  it('true: the first address of the chain is the client', async () => {
    const app = await createTestApp({
      UA_DENY_THRESHOLD: '3',
      UA_DENY_SECONDS: '60',
      TRUST_PROXY: 'true',
    });
    try {
      await resetDatabase(app);
      const token = await issueToken(app, await createUser(app));
      await denyForwardedAddress(app);
      expectIpDenied(
        await send(app, 'get', '/v1/my/anime/ratings', {
          token,
          forwardedFor: '10.0.0.1, 10.0.0.2',
        }),
        60,
      );
      expect(
        (
          await send(app, 'get', '/v1/my/anime/ratings', {
            token,
            forwardedFor: '10.0.0.2, 10.0.0.1',
          })
        ).status,
      ).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('access control: requests rejected at steps 1-5 do not count against the rate limits', () => {
  let app: NestFastifyApplication;
  let user: User;
  let token: string;

  useTestApp((created) => (app = created), {
    RATE_LIMIT_USER_LIMIT: '2',
    RATE_LIMIT_IP_LIMIT: '2',
  });

  beforeEach(async () => {
    user = await createUser(app);
    token = await issueToken(app, user);
  });

  it.each([
    ['GET /v1/my/anime/ratings', '/v1/my/anime/ratings', 'ratings.anime', '/v1/my/books/ratings'],
    ['GET /v1/my/profile', '/v1/my/profile', 'user.profile', undefined],
  ])('%s', async (_name, path, scope, unknownMediaTypePath) => {
    const lackingScope = await issueToken(app, user, allScopesBut(scope));
    for (let i = 0; i < 3; i++) {
      expectInsufficientScope(await send(app, 'get', path, { token: lackingScope }), scope);
      expectUserAgentRejected(await send(app, 'get', path, { userAgent: GENERIC_UA, token }));
      expectChallenge(await send(app, 'get', path), NO_CREDENTIALS_CHALLENGE);
      expectChallenge(await send(app, 'get', path, { token: 'unknown' }), INVALID_TOKEN_CHALLENGE);
      if (unknownMediaTypePath) {
        expectProblem(await send(app, 'get', unknownMediaTypePath, { token }), 404);
        expectProblem(await send(app, 'get', unknownMediaTypePath, { token: lackingScope }), 404);
      }
    }

    const first = await send(app, 'get', path, { token });
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe('1');
    expect((await send(app, 'get', path, { token })).status).toBe(200);
    const third = await send(app, 'get', path, { token });
    expectProblem(third, 429);
    expect(third.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  });
});
