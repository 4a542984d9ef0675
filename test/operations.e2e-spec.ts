import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import parsePrometheusTextFormat, { PrometheusFamily } from 'parse-prometheus-text-format';
import request from 'supertest';
import { anime, createUserWithToken, importTitles } from './factories';
import { api, createTestApp, resetDatabase } from './utils/test-app';
import { sleep } from './utils/wait';
import { DataSource, type EntityTarget, type ObjectLiteral } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { createHash, randomBytes } from 'node:crypto';
import { AccessToken } from '../src/auth/access-token.entity';
import { hashToken } from '../src/auth/tokens.service';
import { IpDenial } from '../src/auth/ip-denial.entity';
import { ClientsService } from '../src/oauth/clients.service';
import { AuthorizationCode } from '../src/oauth/entities/authorization-code.entity';
import { RefreshToken } from '../src/oauth/entities/refresh-token.entity';
import { SignInReset } from '../src/oauth/entities/sign-in-reset.entity';
import { GrantsService } from '../src/oauth/grants.service';
import { LOGIN_THROTTLE } from '../src/oauth/login-throttle.service';
import type { PurgeTask } from '../src/purges/purge-registry';
import { PurgeRunner } from '../src/purges/purge-runner.service';
import { MetricsService } from '../src/metrics/metrics.service';
import { createUser, issueToken } from './factories';

const METRICS_TOKEN = 'scrape-secret-for-tests';
const REDIRECT_URI = 'https://listsync.example/callback';

function family(families: PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no ${name} in /metrics`);
  return found;
}

/** The value of the sample of `name` whose labels include `labels`, 0 when there is none. */
function sample(families: PrometheusFamily[], name: string, labels: Record<string, string>) {
  const match = family(families, name).metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  return Number(match?.value ?? match?.count ?? 0);
}

describe('operations (contract §16)', () => {
  describe('GET /metrics', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createTestApp({ METRICS_TOKEN, RATE_LIMIT_USER_LIMIT: '5' });
      await resetDatabase(app);
      await importTitles(app, [anime(1)]);
    });

    afterAll(async () => {
      await app.close();
    });

    const scrape = () =>
      request(app.getHttpServer()).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);

    it('needs METRICS_TOKEN when it is set', async () => {
      const none = await request(app.getHttpServer()).get('/metrics').expect(401);
      expect(none.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(none.headers['www-authenticate']).toMatch(/^Bearer /);
      await request(app.getHttpServer())
        .get('/metrics')
        .set('Authorization', 'Bearer wrong')
        .expect(401);
      await request(app.getHttpServer())
        .get('/metrics')
        .set('Authorization', METRICS_TOKEN)
        .expect(401);
      const ok = await scrape().expect(200);
      expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    });

    it('counts the requests by route pattern and status, never by raw path', async () => {
      const reader = await createUserWithToken(app);
      const other = await createUserWithToken(app);
      for (let i = 0; i < 3; i++)
        await api(app, reader.token).get('/v1/my/anime/1/ratings').expect(200);
      await api(app, reader.token).get('/v1/my/anime/777/ratings').expect(404);
      await request(app.getHttpServer()).get('/no/such/path/42').expect(404);
      await request(app.getHttpServer()).get('/health/live').expect(200);
      const profile = [];
      for (let i = 0; i < 7; i++)
        profile.push((await api(app, other.token).get('/v1/my/profile')).status);
      expect(profile).toEqual([200, 200, 200, 200, 200, 429, 429]);

      const text = (await scrape().expect(200)).text;
      const families = parsePrometheusTextFormat(text);
      const route = '/v1/my/anime/:id/ratings';
      const count = (labels: Record<string, string>) =>
        sample(families, 'http_requests_total', labels);
      expect({
        ratings200: count({ method: 'GET', route, status: '200' }),
        ratings404: count({ method: 'GET', route, status: '404' }),
        unmatched: count({ method: 'GET', route: 'unmatched', status: '404' }),
        live: count({ method: 'GET', route: '/health/live', status: '200' }),
        profile200: count({ method: 'GET', route: '/v1/my/profile', status: '200' }),
        profile429: count({ method: 'GET', route: '/v1/my/profile', status: '429' }),
        rejections: sample(families, 'rate_limit_rejections_total', {}),
        // The parser keeps no labels of histogram samples: read the _count line itself.
        histogram: Number(
          /^http_request_duration_seconds_count\{method="GET",route="\/v1\/my\/anime\/:id\/ratings",status="200"\} (\d+)$/m.exec(
            text,
          )?.[1],
        ),
      }).toEqual({
        ratings200: 3,
        ratings404: 1,
        unmatched: 1,
        live: 1,
        profile200: 5,
        profile429: 2,
        rejections: 2,
        histogram: 3,
      });

      const routes = family(families, 'http_requests_total').metrics.map((m) => m.labels?.route);
      expect(routes.filter((r) => r !== undefined && /\/\d+(\/|$)/.test(r))).toEqual([]);
      for (const name of [
        'webhook_deliveries_total',
        'purged_rows_total',
        'process_cpu_seconds_total',
      ]) {
        expect(family(families, name).name).toBe(name);
      }
    });
  });

  describe('access log', () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createTestApp({ LOG_LEVEL: 'info' }, [], destination);
      await resetDatabase(app);
      await importTitles(app, [anime(1)]);
    });

    afterAll(async () => {
      await app.close();
    });

    const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

    it('writes one JSON line per request with its request id, and never the token or the body', async () => {
      const { user, token } = await createUserWithToken(app);
      const sent = [
        api(app, token)
          .put('/v1/my/anime/1/ratings', { status: 'completed', notes: 'very-private-notes' })
          .set('X-Request-Id', 'log-test-put'),
        api(app, token).get('/v1/my/anime/1/ratings').set('X-Request-Id', 'log-test-get'),
        api(app, 'not-a-token').get('/v1/my/profile').set('X-Request-Id', 'log-test-401'),
        request(app.getHttpServer()).get('/no/such/path').set('X-Request-Id', 'log-test-404'),
        request(app.getHttpServer())
          .get('/health')
          .set('X-Request-Id', 'log-test-health')
          .set('Cookie', 'session=cookie-value'),
      ];
      const statuses = [];
      for (const test of sent) statuses.push((await test).status);
      expect(statuses).toEqual([200, 200, 401, 404, 200]);
      // Written asynchronously, within moments.
      for (let i = 0; i < 50 && !lines.some((l) => l.includes('log-test-health')); i++) {
        await sleep(20);
      }

      const access = records().filter((record) => record.msg === 'request');
      const byId = (id: string) => access.filter((record) => record.request_id === id);
      expect(byId('log-test-put')).toEqual([
        expect.objectContaining({
          level: 30,
          method: 'PUT',
          route: '/v1/my/anime/:id/ratings',
          status: 200,
          duration_ms: expect.any(Number),
          user_id: user.id,
          client_id: null,
        }),
      ]);
      expect(byId('log-test-get')).toHaveLength(1);
      expect(byId('log-test-401')).toEqual([
        expect.objectContaining({ status: 401, route: '/v1/my/profile', user_id: null }),
      ]);
      expect(byId('log-test-404')).toEqual([
        expect.objectContaining({ status: 404, route: 'unmatched' }),
      ]);
      expect(byId('log-test-health')).toHaveLength(1);

      const all = lines.join('');
      for (const secret of [token, 'not-a-token', 'very-private-notes', 'cookie-value']) {
        expect(all).not.toContain(secret);
      }
      // Application logs (Nest's Logger, as every module uses it) go through the same JSON stream.
      new Logger('OperationsSpec').log('an application line');
      expect(records()).toContainEqual(
        expect.objectContaining({ context: 'OperationsSpec', msg: 'an application line' }),
      );
    });

    it('LOG_LEVEL above info writes no access lines', async () => {
      const quiet: string[] = [];
      const other = await createTestApp({ LOG_LEVEL: 'warn' }, [], {
        write: (line: string) => void quiet.push(line),
      });
      try {
        await request(other.getHttpServer()).get('/health/live').expect(200);
        expect(quiet.filter((line) => line.includes('"msg":"request"'))).toEqual([]);
      } finally {
        await other.close();
      }
    });
  });

  describe('purges', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createTestApp({ METRICS_TOKEN });
    });

    beforeEach(async () => {
      await resetDatabase(app);
      await app
        .get(DataSource)
        .query("UPDATE purge_leases SET holder = NULL, expires_at = '1970-01-01 00:00:00'");
    });

    afterAll(async () => {
      await app.close();
    });

    /** `count` rows made by `row`, inserted 200 to a statement. */
    async function insertMany<T extends ObjectLiteral>(
      entity: EntityTarget<T>,
      count: number,
      row: () => QueryDeepPartialEntity<T>,
    ): Promise<void> {
      const rows = Array.from({ length: count }, row);
      for (let i = 0; i < rows.length; i += 200) {
        await app
          .get(DataSource)
          .getRepository(entity)
          .insert(rows.slice(i, i + 200));
      }
    }

    const randomHash = () => createHash('sha256').update(randomBytes(16)).digest('hex');
    const anHourAgo = () => new Date(Date.now() - 3_600_000);
    const twoHoursAgo = () => new Date(Date.now() - 7_200_000);

    /** `count` expired access tokens of `userId`, inserted in bulk. */
    function insertExpiredTokens(userId: number, count: number): Promise<void> {
      return insertMany(AccessToken, count, () => ({
        tokenHash: randomHash(),
        userId,
        scopes: 'user.profile',
        clientId: null,
        grantId: null,
        createdAt: twoHoursAgo(),
        expiresAt: anHourAgo(),
        revokedAt: null,
      }));
    }

    const tokenRows = () => app.get(DataSource).getRepository(AccessToken).count();

    it('removes expired access tokens in batches and keeps live ones, counting them in /metrics', async () => {
      const user = await createUser(app);
      const live = await issueToken(app, user);
      await insertExpiredTokens(user.id, 1005);
      expect(await tokenRows()).toBe(1006);

      const purged = await app.get(PurgeRunner).runOnce();
      expect(purged).toMatchObject({ access_tokens: 1005, sync_deletions: 0 });
      expect(await tokenRows()).toBe(1);
      await api(app, live).get('/v1/my/profile').expect(200);

      const text = (
        await request(app.getHttpServer())
          .get('/metrics')
          .set('Authorization', `Bearer ${METRICS_TOKEN}`)
          .expect(200)
      ).text;
      const families = parsePrometheusTextFormat(text);
      expect(sample(families, 'purged_rows_total', { kind: 'access_tokens' })).toBe(1005);
    });

    it('removes expired authorization codes and refresh tokens, at most 1000 rows a batch, and keeps live ones', async () => {
      const user = await createUser(app);
      const { client, secret } = await app.get(ClientsService).create({
        name: 'Purge test',
        redirectUris: [REDIRECT_URI],
        isPublic: false,
      });
      const grants = app.get(GrantsService);
      const grantId = await grants.open(client.id, user.id);
      const liveCode = randomBytes(32).toString('base64url');
      await grants.saveCode({
        code: liveCode,
        grantId,
        redirectUri: REDIRECT_URI,
        scopes: ['user.profile'],
        codeChallenge: createHash('sha256').update('verifier').digest('base64url'),
        codeChallengeMethod: 'S256',
        expiresAt: new Date(Date.now() + 600_000),
      });
      const liveRefreshToken = randomBytes(32).toString('base64url');
      await grants.saveTokens({
        grantId,
        userId: user.id,
        clientId: client.clientId,
        scopes: ['user.profile'],
        accessToken: randomBytes(32).toString('base64url'),
        accessTokenExpiresAt: new Date(Date.now() + 3_600_000),
        refreshToken: liveRefreshToken,
        refreshTokenExpiresAt: new Date(Date.now() + 86_400_000),
      });
      await insertMany(AuthorizationCode, 1005, () => ({
        codeHash: randomHash(),
        grantId,
        redirectUri: REDIRECT_URI,
        scopes: 'user.profile',
        codeChallenge: 'challenge',
        codeChallengeMethod: 'S256',
        createdAt: twoHoursAgo(),
        expiresAt: anHourAgo(),
        usedAt: null,
      }));
      await insertMany(RefreshToken, 1005, () => ({
        tokenHash: randomHash(),
        grantId,
        scopes: 'user.profile',
        createdAt: twoHoursAgo(),
        expiresAt: anHourAgo(),
        rotatedAt: null,
        revokedAt: null,
      }));
      const codes = app.get(DataSource).getRepository(AuthorizationCode);
      const refreshTokens = app.get(DataSource).getRepository(RefreshToken);
      expect([await codes.count(), await refreshTokens.count()]).toEqual([1006, 1006]);

      // The registered tasks themselves, called by the runner: each batch's rows counted.
      const batches = ['oauth_authorization_codes', 'oauth_refresh_tokens'].map((kind) =>
        jest.spyOn(app.get<PurgeTask>(`purge:${kind}`), 'purgeBatch'),
      );
      let purged: Record<string, number> | null;
      try {
        purged = await app.get(PurgeRunner).runOnce();
        for (const batch of batches) {
          expect(batch.mock.calls.map(([, limit]) => limit)).toEqual([1000, 1000]);
          expect(await Promise.all(batch.mock.results.map((result) => result.value))).toEqual([
            1000, 5,
          ]);
        }
      } finally {
        for (const batch of batches) batch.mockRestore();
      }
      expect(purged).toMatchObject({ oauth_authorization_codes: 1005, oauth_refresh_tokens: 1005 });
      expect((await codes.find()).map((row) => row.codeHash)).toEqual([hashToken(liveCode)]);
      expect((await refreshTokens.find()).map((row) => row.tokenHash)).toEqual([
        hashToken(liveRefreshToken),
      ]);
      const refreshed = await request(app.getHttpServer())
        .post('/oauth/token')
        .type('form')
        .send(
          new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: liveRefreshToken,
            client_id: client.clientId,
            client_secret: secret!,
          }).toString(),
        );
      expect(refreshed.status).toBe(200);
    });

    it('removes ended IP denials and sign-in resets older than a throttle window, keeps the others', async () => {
      const now = Date.now();
      const window = LOGIN_THROTTLE.account.windowSeconds * 1000;
      const dataSource = app.get(DataSource);
      await dataSource.getRepository(IpDenial).insert([
        { address: '203.0.113.1', deniedAt: now - 120_000, deniedUntil: now - 60_000 },
        { address: '203.0.113.2', deniedAt: now - 60_000, deniedUntil: now + 60_000 },
      ]);
      await dataSource.getRepository(SignInReset).insert([
        { account: 'old', resetAt: now - window - 60_000 },
        { account: 'recent', resetAt: now - window + 60_000 },
      ]);

      const purged = await app.get(PurgeRunner).runOnce();
      expect(purged).toMatchObject({ ip_denials: 1, sign_in_resets: 1 });
      const denials = await dataSource.getRepository(IpDenial).find();
      expect(denials.map((row) => row.address)).toEqual(['203.0.113.2']);
      const resets = await dataSource.getRepository(SignInReset).find();
      expect(resets.map((row) => row.account)).toEqual(['recent']);
    });

    it('runs on one instance at a time: not while another holds the lease', async () => {
      const user = await createUser(app);
      await insertExpiredTokens(user.id, 3);
      const future = new Date(Date.now() + 60_000).toISOString().slice(0, 19).replace('T', ' ');
      await app
        .get(DataSource)
        .query(`UPDATE purge_leases SET holder = 'another-instance', expires_at = '${future}'`);
      expect(await app.get(PurgeRunner).runOnce()).toBeNull();
      expect(await tokenRows()).toBe(3);

      // A lease its holder did not renew (it crashed) runs out.
      await app.get(DataSource).query("UPDATE purge_leases SET expires_at = '2000-01-01 00:00:00'");
      expect(await app.get(PurgeRunner).runOnce()).toMatchObject({ access_tokens: 3 });
      expect(await tokenRows()).toBe(0);
    });
  });

  describe('METRICS_ENABLED=false', () => {
    it('serves no /metrics and counts nothing, while the API answers as before', async () => {
      const app = await createTestApp({ METRICS_ENABLED: 'false' });
      try {
        await resetDatabase(app);
        await importTitles(app, [anime(1)]);
        const { token } = await createUserWithToken(app);
        await api(app, token).get('/v1/my/anime/1/ratings').expect(200);
        const scrape = await request(app.getHttpServer()).get('/metrics').expect(404);
        expect(scrape.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        const exposition = await app.get(MetricsService).exposition();
        expect(exposition).not.toMatch(/^http_requests_total\{/m);
      } finally {
        await app.close();
      }
    });
  });

  describe('GET /metrics without METRICS_TOKEN', () => {
    it('is open', async () => {
      const app = await createTestApp();
      try {
        await request(app.getHttpServer()).get('/metrics').expect(200);
      } finally {
        await app.close();
      }
    });
  });
});
