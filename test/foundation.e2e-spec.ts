import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './utils/test-app';

describe('foundation: health, errors, request ids, docs', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  it('GET /health answers {"status":"ok"} without token or User-Agent', async () => {
    const response = await request(app.getHttpServer()).get('/health').expect(200);
    expect(response.body).toEqual({ status: 'ok' });
    for (const path of ['/health/live', '/health/ready']) {
      const split = await request(app.getHttpServer()).get(path).expect(200);
      expect(split.body).toEqual({ status: 'ok' });
    }
  });

  it.each(['/v1/anything', '/v1/my/anime', '/nothing/here'])(
    'unknown route %s is a problem+json 404',
    async (path) => {
      const response = await request(app.getHttpServer()).get(path).expect(404);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.body).toMatchObject({ status: 404, title: 'Not found', success: false });
      expect(response.body.type).toMatch(/\/problems\/not-found$/);
      expect(typeof response.body.detail).toBe('string');
    },
  );

  it('an undecodable path is a problem+json 400, never HTML', async () => {
    for (const path of ['/%zz', '/v1/my/anime/%E0%A4%A/ratings']) {
      const response = await request(app.getHttpServer()).get(path);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.body).toMatchObject({ status: 400, success: false });
      expect(response.headers['x-request-id']).toBeTruthy();
    }
  });

  it("every response carries an X-Request-Id, the caller's when it is sane", async () => {
    const own = await request(app.getHttpServer()).get('/health').set('X-Request-Id', 'abc-123');
    expect(own.headers['x-request-id']).toBe('abc-123');
    const insane = await request(app.getHttpServer())
      .get('/health')
      .set('X-Request-Id', 'a b<script>');
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const generated = await request(app.getHttpServer()).get('/v1/nothing');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET / points to /docs and the OpenAPI document, in the body and in Link', async () => {
    const response = await request(app.getHttpServer()).get('/').expect(200);
    expect(response.body).toMatchObject({ docs: '/docs', openapi: '/docs/openapi.json' });
    expect(response.headers.link).toBe(
      '</docs/openapi.json>; rel="service-desc", </docs>; rel="service-doc"',
    );
    await request(app.getHttpServer()).get(response.body.openapi).expect(200);
  });

  it('serves the OpenAPI document and Swagger UI at /docs, outside the API pipeline', async () => {
    const ui = await request(app.getHttpServer()).get('/docs').expect(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
    const document = await request(app.getHttpServer()).get('/docs/openapi.json').expect(200);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/my/anime/{id}/ratings',
        '/v1/my/anime/ratings',
        '/v1/my/manga/{id}/ratings',
        '/v1/my/manga/ratings',
        '/v1/my/profile',
        '/health',
      ]),
    );
  });

  it('GET /health is a problem+json 503 when the database does not answer', async () => {
    const other = await createTestApp();
    try {
      await other.get(DataSource).destroy();
      const response = await request(other.getHttpServer()).get('/health').expect(503);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.body).toMatchObject({
        status: 503,
        success: false,
        detail: 'The database does not answer',
      });
      await request(other.getHttpServer()).get('/health/ready').expect(503);
      // Liveness never touches the database: the process still serves.
      await request(other.getHttpServer()).get('/health/live').expect(200);
    } finally {
      await other.close();
    }
  });
});
