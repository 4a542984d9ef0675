import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Redis from 'ioredis';
import request from 'supertest';
import { SCOPES } from '../src/auth/scopes';
import { anime, createUserWithToken, importTitles, issueToken, manga } from './factories';
import { api, createTestApp, resetDatabase, USER_AGENT } from './utils/test-app';
import { testRedisUrl } from './utils/test-services';
import { sleep } from './utils/wait';

/**
 * Contract §5 (and step 6 of §2): per-user and per-IP budgets per endpoint row, the RateLimit-*
 * headers of the window with the least left, and counters shared through Redis.
 */

const REDIS_URL = testRedisUrl();
const PROBLEM_JSON = 'application/problem+json; charset=utf-8';
const WHOLE_SECONDS = /^\d+$/;

type Response = request.Response;

interface Budget {
  limit: number;
  remaining: number;
  reset: number;
}

/** The RateLimit-* headers, checked to be whole numbers before they are read. */
function budgetOf(response: Response): Budget {
  const header = (name: string): number => {
    const value: unknown = response.headers[name];
    expect(value).toMatch(WHOLE_SECONDS);
    return Number(value);
  };
  return {
    limit: header('ratelimit-limit'),
    remaining: header('ratelimit-remaining'),
    reset: header('ratelimit-reset'),
  };
}

function expectOk(response: Response, limit: number, remaining: number, windowSeconds: number) {
  expect(response.status).toBe(200);
  const budget = budgetOf(response);
  expect(budget).toMatchObject({ limit, remaining });
  expect(budget.reset).toBeGreaterThanOrEqual(1);
  expect(budget.reset).toBeLessThanOrEqual(windowSeconds);
}

function expectRateLimited(response: Response, limit: number, windowSeconds: number) {
  expect(response.status).toBe(429);
  expect(response.headers['content-type']).toBe(PROBLEM_JSON);
  expect(response.body).toMatchObject({ status: 429, success: false, title: 'Too many requests' });
  expect(response.body.type).toMatch(/\/problems\/rate-limited$/);
  expect(typeof response.body.detail).toBe('string');
  expect(response.headers['retry-after']).toMatch(WHOLE_SECONDS);
  const retryAfter = Number(response.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  const budget = budgetOf(response);
  expect(budget).toMatchObject({ limit, remaining: 0 });
  expect(budget.reset).toBeGreaterThanOrEqual(1);
  expect(budget.reset).toBeLessThanOrEqual(windowSeconds);
}

/** A client at `ip`, seen through X-Forwarded-For (the apps trust the loopback proxy). */
function from(app: NestFastifyApplication, token: string, ip: string) {
  const client = api(app, token);
  return {
    get: (path: string) => client.get(path).set('X-Forwarded-For', ip),
    delete: (path: string) => client.delete(path).set('X-Forwarded-For', ip),
    put: (path: string, body: unknown) => client.put(path, body).set('X-Forwarded-For', ip),
  };
}

/**
 * Once per app, never between its tests: SQLite reuses the ids of deleted users, and the app's
 * counters are keyed by user id.
 */
async function freshData(app: NestFastifyApplication): Promise<void> {
  await resetDatabase(app);
  await importTitles(app, [anime(1), anime(2), manga(1), manga(2)]);
}

describe('rate limits (contract §5)', () => {
  describe('per user, per endpoint (user limit 3 per 60 s)', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createTestApp({
        RATE_LIMIT_USER_LIMIT: '3',
        RATE_LIMIT_USER_WINDOW_SECONDS: '60',
        RATE_LIMIT_IP_LIMIT: '1000',
        RATE_LIMIT_IP_WINDOW_SECONDS: '120',
      });
      await freshData(app);
    });

    afterAll(async () => {
      await app.close();
    });

    it('200s carry the budget counting down; the 4th request is a 429 problem+json', async () => {
      const { token } = await createUserWithToken(app);
      const client = api(app, token);
      expectOk(await client.get('/v1/my/anime/ratings'), 3, 2, 60);
      expectOk(await client.get('/v1/my/anime/ratings'), 3, 1, 60);
      expectOk(await client.get('/v1/my/anime/ratings'), 3, 0, 60);
      const limited = await client.get('/v1/my/anime/ratings');
      expectRateLimited(limited, 3, 60);
      expect(limited.body.detail).toMatch(/rate limit/i);
      // Still limited: a 429 does not open the window again.
      expectRateLimited(await client.get('/v1/my/anime/ratings'), 3, 60);
    });

    it('RateLimit-Reset counts down the same fixed window', async () => {
      const { token } = await createUserWithToken(app);
      const first = budgetOf(await api(app, token).get('/v1/my/profile').expect(200));
      const second = budgetOf(await api(app, token).get('/v1/my/profile').expect(200));
      expect(first.reset).toBeLessThanOrEqual(60);
      expect(second.reset).toBeLessThanOrEqual(first.reset);
      expect(second.reset).toBeGreaterThanOrEqual(first.reset - 1);
    });

    it('anime and manga share the budget of an endpoint row, and so do title ids', async () => {
      const { token } = await createUserWithToken(app);
      const client = api(app, token);
      expectOk(await client.get('/v1/my/anime/1/ratings'), 3, 2, 60);
      expectOk(await client.get('/v1/my/manga/1/ratings'), 3, 1, 60);
      expectOk(await client.get('/v1/my/anime/2/ratings'), 3, 0, 60);
      expectRateLimited(await client.get('/v1/my/manga/2/ratings'), 3, 60);
      expectRateLimited(await client.get('/v1/my/anime/1/ratings'), 3, 60);

      expectOk(await client.get('/v1/my/manga/ratings'), 3, 2, 60);
      expectOk(await client.get('/v1/my/anime/ratings'), 3, 1, 60);
      expectOk(await client.get('/v1/my/manga/ratings'), 3, 0, 60);
      expectRateLimited(await client.get('/v1/my/anime/ratings'), 3, 60);
    });

    it('each endpoint row has a budget of its own', async () => {
      const { token } = await createUserWithToken(app);
      const client = api(app, token);
      for (let i = 0; i < 3; i++) await client.get('/v1/my/anime/1/ratings').expect(200);
      expectRateLimited(await client.get('/v1/my/anime/1/ratings'), 3, 60);

      expectOk(await client.get('/v1/my/anime/ratings'), 3, 2, 60);
      expectOk(await client.put('/v1/my/anime/1/ratings', { status: 'completed' }), 3, 2, 60);
      expectOk(await client.delete('/v1/my/anime/1/ratings'), 3, 2, 60);
      expectOk(await client.get('/v1/my/profile'), 3, 2, 60);

      for (const remaining of [1, 0]) {
        expectOk(
          await client.put('/v1/my/manga/1/ratings', { status: 'ongoing' }),
          3,
          remaining,
          60,
        );
      }
      expectRateLimited(await client.put('/v1/my/anime/2/ratings', { status: 'ongoing' }), 3, 60);
      // The exhausted rows stay exhausted; the others still have what they had.
      expectRateLimited(await client.get('/v1/my/manga/2/ratings'), 3, 60);
      expectOk(await client.delete('/v1/my/manga/1/ratings'), 3, 1, 60);
      expectOk(await client.get('/v1/my/profile'), 3, 1, 60);
    });

    it('another user has a window of their own', async () => {
      const first = await createUserWithToken(app);
      const second = await createUserWithToken(app);
      for (let i = 0; i < 3; i++) await api(app, first.token).get('/v1/my/profile').expect(200);
      expectRateLimited(await api(app, first.token).get('/v1/my/profile'), 3, 60);
      expectOk(await api(app, second.token).get('/v1/my/profile'), 3, 2, 60);
      expectRateLimited(await api(app, first.token).get('/v1/my/profile'), 3, 60);
    });

    it('authenticated requests count even when later rejected as invalid (400, 404, 415)', async () => {
      const { token } = await createUserWithToken(app);
      const client = api(app, token);

      const invalidBody = await client.put('/v1/my/anime/1/ratings', { status: 'watching' });
      expect(invalidBody.status).toBe(400);
      expect(budgetOf(invalidBody)).toMatchObject({ limit: 3, remaining: 2 });

      const unknownTitle = await client.put('/v1/my/anime/999/ratings', { status: 'completed' });
      expect(unknownTitle.status).toBe(404);
      expect(budgetOf(unknownTitle)).toMatchObject({ limit: 3, remaining: 1 });

      const wrongType = await client
        .put('/v1/my/manga/1/ratings')
        .set('Content-Type', 'text/plain')
        .send('status=completed');
      expect(wrongType.status).toBe(415);
      expect(budgetOf(wrongType)).toMatchObject({ limit: 3, remaining: 0 });

      // A valid request now meets the exhausted budget.
      expectRateLimited(await client.put('/v1/my/anime/1/ratings', { status: 'completed' }), 3, 60);

      const getOne = [
        await client.get('/v1/my/anime/999/ratings'),
        await client.get('/v1/my/manga/abc/ratings'),
        await client.get('/v1/my/anime/1/ratings?use_external_id=yes'),
      ];
      expect(getOne.map((response) => response.status)).toEqual([404, 400, 400]);
      expect(getOne.map((response) => budgetOf(response).remaining)).toEqual([2, 1, 0]);
      expectRateLimited(await client.get('/v1/my/anime/1/ratings'), 3, 60);

      const deleteNothing = await client.delete('/v1/my/anime/1/ratings');
      expect(deleteNothing.status).toBe(404);
      expect(budgetOf(deleteNothing)).toMatchObject({ limit: 3, remaining: 2 });
    });
  });

  describe('per client IP, and the window with the least left (user 5, IP 3 per 60 s)', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createTestApp({
        RATE_LIMIT_USER_LIMIT: '5',
        RATE_LIMIT_USER_WINDOW_SECONDS: '60',
        RATE_LIMIT_IP_LIMIT: '3',
        RATE_LIMIT_IP_WINDOW_SECONDS: '60',
        TRUST_PROXY: 'loopback',
      });
      await freshData(app);
    });

    afterAll(async () => {
      await app.close();
    });

    it('the headers follow whichever window has the least left', async () => {
      const { token } = await createUserWithToken(app);
      const x = from(app, token, '203.0.113.10');
      // The IP window (3) has less left than the user window (5).
      expectOk(await x.get('/v1/my/anime/ratings'), 3, 2, 60);
      expectOk(await x.get('/v1/my/manga/ratings'), 3, 1, 60);
      expectOk(await x.get('/v1/my/anime/ratings'), 3, 0, 60);

      // From a fresh address: 2 left there, but 5 - 4 = 1 left in the user window.
      const y = from(app, token, '203.0.113.11');
      expectOk(await y.get('/v1/my/manga/ratings'), 5, 1, 60);
      expectOk(await y.get('/v1/my/anime/ratings'), 5, 0, 60);
      expectRateLimited(await from(app, token, '203.0.113.12').get('/v1/my/anime/ratings'), 5, 60);
    });

    it('the IP window counts every user at that address; another address is unaffected', async () => {
      const first = await createUserWithToken(app);
      const second = await createUserWithToken(app);
      const third = await createUserWithToken(app);
      const ip = '198.51.100.7';
      expectOk(await from(app, first.token, ip).get('/v1/my/anime/1/ratings'), 3, 2, 60);
      expectOk(await from(app, second.token, ip).get('/v1/my/manga/1/ratings'), 3, 1, 60);
      expectOk(await from(app, first.token, ip).get('/v1/my/anime/2/ratings'), 3, 0, 60);
      expectRateLimited(await from(app, second.token, ip).get('/v1/my/anime/1/ratings'), 3, 60);
      // A user who never called before is limited at that address too.
      expectRateLimited(await from(app, third.token, ip).get('/v1/my/anime/1/ratings'), 3, 60);

      expectOk(
        await from(app, third.token, '198.51.100.8').get('/v1/my/anime/1/ratings'),
        3,
        2,
        60,
      );
      // The IP budget is per endpoint as well.
      expectOk(await from(app, first.token, ip).get('/v1/my/anime/ratings'), 3, 2, 60);
    });

    it('requests rejected by User-Agent, token, mediaType or scope do not count', async () => {
      const { user, token } = await createUserWithToken(app);
      // The same user, so that a scope rejection counted in the user window would show too.
      const animeOnly = await issueToken(app, user, [SCOPES.anime]);
      const ip = '198.51.100.30';
      const server = app.getHttpServer();
      const path = '/v1/my/manga/1/ratings';

      for (let i = 0; i < 4; i++) {
        const rejected = [
          await request(server)
            .get(path)
            .set('X-Forwarded-For', ip)
            .set('User-Agent', 'curl/8.5.0')
            .set('Authorization', `Bearer ${token}`),
          await request(server)
            .get(path)
            .set('X-Forwarded-For', ip)
            .set('Authorization', `Bearer ${token}`),
          await request(server).get(path).set('X-Forwarded-For', ip).set('User-Agent', USER_AGENT),
          await request(server)
            .get(path)
            .set('X-Forwarded-For', ip)
            .set('User-Agent', USER_AGENT)
            .set('Authorization', 'Bearer not-a-real-token'),
          await from(app, token, ip).get('/v1/my/novel/1/ratings'),
          await from(app, animeOnly, ip).get(path),
        ];
        expect(rejected.map((response) => response.status)).toEqual([403, 403, 401, 401, 404, 403]);
        // They carry the address's untouched budget; the unknown media type that of the row its
        // path names (GET one).
        for (const response of rejected) {
          expect(budgetOf(response)).toEqual({ limit: 3, remaining: 3, reset: 60 });
        }
      }

      // Neither the address (3) nor the user (5) has spent anything.
      expectOk(await from(app, token, ip).get(path), 3, 2, 60);
      expectOk(await from(app, token, ip).get(path), 3, 1, 60);
      expectOk(await from(app, token, ip).get(path), 3, 0, 60);
      expectRateLimited(await from(app, token, ip).get(path), 3, 60);

      // A refused request now shows the spent budget, still without counting.
      const late = await request(server)
        .get(path)
        .set('X-Forwarded-For', ip)
        .set('User-Agent', USER_AGENT);
      expect(late.status).toBe(401);
      expect(budgetOf(late)).toMatchObject({ limit: 3, remaining: 0 });
    });
  });

  describe('answers of the body parser and of an unknown media type (user 5, IP 3 per 60 s)', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createTestApp({
        RATE_LIMIT_USER_LIMIT: '5',
        RATE_LIMIT_USER_WINDOW_SECONDS: '60',
        RATE_LIMIT_IP_LIMIT: '3',
        RATE_LIMIT_IP_WINDOW_SECONDS: '60',
        TRUST_PROXY: 'loopback',
      });
      await freshData(app);
    });

    afterAll(async () => {
      await app.close();
    });

    it('413, broken-JSON 400 and unknown-mediaType 404 carry the budget and do not count', async () => {
      const { token } = await createUserWithToken(app);
      const ip = '198.51.100.40';
      const client = from(app, token, ip);
      const put = (path: string, raw: string) =>
        api(app, token)
          .put(path)
          .set('X-Forwarded-For', ip)
          .set('Content-Type', 'application/json')
          .send(raw);

      // One counted request first, so that the budget shown is read, not a default.
      expectOk(await client.put('/v1/my/anime/1/ratings', { status: 'completed' }), 3, 2, 60);

      const refused = [
        await put('/v1/my/anime/1/ratings', JSON.stringify({ notes: 'x'.repeat(17000) })),
        await put('/v1/my/manga/1/ratings', '{"status": "ongoing",'),
        await client.put('/v1/my/novel/1/ratings', { status: 'completed' }),
      ];
      expect(refused.map((response) => response.status)).toEqual([413, 400, 404]);
      for (const response of refused) {
        expect(response.headers['content-type']).toBe(PROBLEM_JSON);
        expect(budgetOf(response)).toMatchObject({ limit: 3, remaining: 2 });
      }
      expect(refused[1].body.detail).toMatch(/not valid JSON/);

      // GET all and DELETE of an unknown media type show their own rows' budgets.
      const getAll = await client.get('/v1/my/novel/ratings');
      expect(getAll.status).toBe(404);
      expect(budgetOf(getAll)).toEqual({ limit: 3, remaining: 3, reset: 60 });

      // Nothing above was counted: two more PUTs fit in the address's budget.
      expectOk(await client.put('/v1/my/anime/2/ratings', { status: 'completed' }), 3, 1, 60);
      expectOk(await client.put('/v1/my/manga/2/ratings', { status: 'ongoing' }), 3, 0, 60);
      expectRateLimited(await client.put('/v1/my/anime/2/ratings', { status: 'completed' }), 3, 60);
    });
  });

  describe('window expiry (user limit 2 per 1 s)', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createTestApp({
        RATE_LIMIT_USER_LIMIT: '2',
        RATE_LIMIT_USER_WINDOW_SECONDS: '1',
        RATE_LIMIT_IP_LIMIT: '1000',
      });
      await freshData(app);
    });

    afterAll(async () => {
      await app.close();
    });

    it('a new window opens once the old one has expired', async () => {
      const { token } = await createUserWithToken(app);
      const client = api(app, token);
      expectOk(await client.get('/v1/my/profile'), 2, 1, 1);
      expectOk(await client.get('/v1/my/profile'), 2, 0, 1);
      const limited = await client.get('/v1/my/profile');
      expectRateLimited(limited, 2, 1);
      expect(limited.headers['retry-after']).toBe('1');

      await sleep(Number(limited.headers['retry-after']) * 1000 + 100);
      expectOk(await client.get('/v1/my/profile'), 2, 1, 1);
      expectOk(await client.get('/v1/my/profile'), 2, 0, 1);
      expectRateLimited(await client.get('/v1/my/profile'), 2, 1);
    });
  });

  describe('Redis: several instances share one budget', () => {
    const prefix = `e2e-${randomBytes(6).toString('hex')}:`;
    const env = {
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_USER_LIMIT: '3',
      RATE_LIMIT_USER_WINDOW_SECONDS: '60',
      RATE_LIMIT_IP_LIMIT: '1000',
    };
    let one: NestFastifyApplication;
    let two: NestFastifyApplication;
    let redis: Redis;

    beforeAll(async () => {
      redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      one = await createTestApp(env);
      two = await createTestApp(env);
      await freshData(one);
    });

    afterAll(async () => {
      await one?.close();
      await two?.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });

    it('/health is ok while Redis answers', async () => {
      for (const app of [one, two]) {
        const response = await request(app.getHttpServer()).get('/health').expect(200);
        expect(response.body).toEqual({ status: 'ok' });
      }
    });

    it('requests alternating between instances count against one budget', async () => {
      const { token } = await createUserWithToken(one);
      expectOk(await api(one, token).get('/v1/my/anime/ratings'), 3, 2, 60);
      expectOk(await api(two, token).get('/v1/my/manga/ratings'), 3, 1, 60);
      expectOk(await api(one, token).get('/v1/my/anime/ratings'), 3, 0, 60);
      expectRateLimited(await api(two, token).get('/v1/my/anime/ratings'), 3, 60);
      expectRateLimited(await api(one, token).get('/v1/my/manga/ratings'), 3, 60);
    });

    it('the (limit+1)th request is a 429 whichever instance serves it', async () => {
      const { token } = await createUserWithToken(one);
      expectOk(await api(two, token).get('/v1/my/profile'), 3, 2, 60);
      expectOk(await api(one, token).get('/v1/my/profile'), 3, 1, 60);
      expectOk(await api(two, token).get('/v1/my/profile'), 3, 0, 60);
      expectRateLimited(await api(one, token).get('/v1/my/profile'), 3, 60);
      expectRateLimited(await api(two, token).get('/v1/my/profile'), 3, 60);
    });

    it('keeps its counters under REDIS_KEY_PREFIX', async () => {
      const first = await createUserWithToken(one);
      await api(one, first.token).get('/v1/my/profile').expect(200);
      const before = await redis.keys(`${prefix}*`);
      expect(before.length).toBeGreaterThanOrEqual(2);

      // A new user at an address already counted: exactly one new window, the user's.
      const second = await createUserWithToken(one);
      await api(two, second.token).get('/v1/my/profile').expect(200);
      const after = await redis.keys(`${prefix}*`);
      expect(after.length).toBe(before.length + 1);
    });
  });

  describe('Redis unreachable: the limits fail open', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createTestApp({
        REDIS_URL: 'redis://127.0.0.1:1',
        RATE_LIMIT_USER_LIMIT: '1',
        RATE_LIMIT_IP_LIMIT: '1',
      });
      await freshData(app);
    });

    afterAll(async () => {
      await app.close();
    });

    it('requests are still served, never 429 nor 5xx', async () => {
      const { token } = await createUserWithToken(app);
      const client = api(app, token);
      const responses: Response[] = [];
      for (let i = 0; i < 4; i++) {
        responses.push(await client.get('/v1/my/anime/ratings'));
        responses.push(await client.get('/v1/my/profile'));
      }
      responses.push(await client.put('/v1/my/anime/1/ratings', { status: 'completed' }));
      responses.push(await client.put('/v1/my/anime/1/ratings', { status: 'dropped' }));
      responses.push(await client.get('/v1/my/anime/1/ratings'));
      expect(responses.map((response) => response.status)).toEqual(Array(11).fill(200));
      const [entry] = (await client.get('/v1/my/anime/1/ratings').expect(200)).body;
      expect(entry).toMatchObject({ id: 1, status: 'dropped' });
    });

    it('/health reports the degraded state', async () => {
      const response = await request(app.getHttpServer()).get('/health').expect(200);
      expect(response.body).toEqual({ status: 'degraded', redis: 'down' });
    });
  });
});
