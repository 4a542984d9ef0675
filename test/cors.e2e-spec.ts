import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { anime, createUserWithToken, importTitles } from './factories';
import { createTestApp, resetDatabase, USER_AGENT } from './utils/test-app';

const APP_ORIGIN = 'https://app.example';
const OTHER_ORIGIN = 'https://evil.example';

describe('CORS (CORS_ORIGINS, contract §17)', () => {
  let app: NestFastifyApplication;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp({
      CORS_ORIGINS: `${APP_ORIGIN}, http://localhost:5173`,
      RATE_LIMIT_USER_LIMIT: '1',
    });
  });

  beforeEach(async () => {
    await resetDatabase(app);
    await importTitles(app, [anime(1)]);
    ({ token } = await createUserWithToken(app));
  });

  afterAll(async () => {
    await app.close();
  });

  const preflight = (path: string, origin: string, method = 'PUT') =>
    request(app.getHttpServer())
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', 'authorization, content-type, api-user-agent');

  it('answers an allowed origin’s preflight 204 before the pipeline, with the path’s methods', async () => {
    // No token, no User-Agent: a preflight carries neither, and is not counted or refused.
    for (let i = 0; i < 3; i++) {
      const response = await preflight('/v1/my/anime/1/ratings', APP_ORIGIN);
      expect(response.status).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(response.headers['access-control-allow-methods']).toBe('GET, PUT, DELETE');
      expect(response.headers['access-control-allow-headers']).toBe(
        'Authorization, Content-Type, Content-Encoding, Api-User-Agent, If-None-Match',
      );
      expect(response.headers.vary).toMatch(/Origin/);
      expect(response.headers['x-request-id']).toBeTruthy();
    }
    const list = await preflight('/v1/my/manga/ratings', 'http://localhost:5173', 'GET');
    expect(list.status).toBe(204);
    expect(list.headers['access-control-allow-methods']).toBe('GET');
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
      const oauth = await preflight(path, APP_ORIGIN, 'POST');
      expect({ path, status: oauth.status }).toEqual({ path, status: 204 });
      expect(oauth.headers['access-control-allow-methods']).toBe('POST');
    }
    const metadata = await preflight('/.well-known/oauth-authorization-server', APP_ORIGIN, 'GET');
    expect(metadata.status).toBe(204);
    expect(metadata.headers['access-control-allow-methods']).toBe('GET');
  });

  it('gives other origins no CORS headers at all', async () => {
    const refused = await preflight('/v1/my/anime/1/ratings', OTHER_ORIGIN);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.headers['access-control-allow-methods']).toBeUndefined();
    const oauth = await preflight('/oauth/token', OTHER_ORIGIN, 'POST');
    expect(oauth.headers['access-control-allow-origin']).toBeUndefined();
    const call = await request(app.getHttpServer())
      .get('/v1/my/anime/1/ratings')
      .set('Origin', OTHER_ORIGIN)
      .set('Api-User-Agent', USER_AGENT)
      .set('Authorization', `Bearer ${token}`);
    expect(call.status).toBe(200);
    expect(call.headers['access-control-allow-origin']).toBeUndefined();
    expect(call.headers['access-control-expose-headers']).toBeUndefined();
  });

  it('marks every response to an allowed origin, errors included, and exposes the API’s headers', async () => {
    const call = () =>
      request(app.getHttpServer())
        .get('/v1/my/anime/1/ratings')
        .set('Origin', APP_ORIGIN)
        .set('Api-User-Agent', USER_AGENT)
        .set('Authorization', `Bearer ${token}`);
    const ok = await call();
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    // The conditional read's own Vary is kept beside Origin.
    expect(ok.headers.vary).toBe('Authorization, Origin');
    expect(ok.headers['access-control-expose-headers']).toBe(
      'ETag, Link, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id, WWW-Authenticate, Content-Disposition',
    );
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.headers['access-control-allow-origin']).toBe(APP_ORIGIN);

    const unauthenticated = await request(app.getHttpServer())
      .get('/v1/my/profile')
      .set('Origin', APP_ORIGIN)
      .set('Api-User-Agent', USER_AGENT);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(unauthenticated.headers.vary).toMatch(/Origin/);

    const token401 = await request(app.getHttpServer())
      .post('/oauth/token')
      .set('Origin', APP_ORIGIN)
      .type('form')
      .send({ grant_type: 'authorization_code', client_id: 'nobody', code: 'x' });
    expect(token401.status).toBeGreaterThanOrEqual(400);
    expect(token401.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('without CORS_ORIGINS nothing is allowed: OPTIONS keeps its plain 204 with Allow', async () => {
    const plain = await createTestApp();
    try {
      const response = await request(plain.getHttpServer())
        .options('/v1/my/anime/1/ratings')
        .set('Origin', APP_ORIGIN)
        .set('Access-Control-Request-Method', 'PUT');
      expect(response.status).toBe(204);
      expect(response.headers.allow).toMatch(/PUT/);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
