import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { anime, createUserWithToken, importTitles } from './factories';
import { PrivateMariaDb } from './utils/private-mariadb';
import { api, createTestApp } from './utils/test-app';
import { tempDir } from './utils/test-services';

const PROBLEM = 'application/problem+json; charset=utf-8';
const STOP = JSON.stringify({ event: 'watched', title: 'Anime 1', episode: 3 });

/**
 * contract §21: a scrobble that arrives while the database is down is 503 problem+json and leaves
 * nothing half-written (no entry, no duplicate-window row): the same request later is `created`.
 */
describe('a scrobble while the database is down', () => {
  async function setUp(app: NestFastifyApplication) {
    await importTitles(app, [anime(1)]);
    const { token } = await createUserWithToken(app);
    const created = (
      await api(app, token).post('/v1/my/scrobblers', { kind: 'generic', name: 'G' }).expect(201)
    ).body as { url: string };
    const path = new URL(created.url).pathname;
    const send = () =>
      request(app.getHttpServer()).post(path).set('Content-Type', 'text/plain').send(STOP);
    return { token, path, send };
  }

  async function expectNothingWritten(app: NestFastifyApplication, token: string) {
    expect((await api(app, token).get('/v1/my/anime/1/ratings').expect(200)).body).toEqual([]);
    expect(await app.get(DataSource).query('SELECT * FROM scrobble_recent')).toEqual([]);
  }

  it('SQLite locked by another process: 503, nothing written, then created', async () => {
    const file = join(tempDir('scrobble-locked-'), 'ratings.sqlite');
    const app = await createTestApp({ DATABASE_URL: `sqlite:${file}`, DATABASE_TIMEOUT_MS: '300' });
    try {
      const { token, path, send } = await setUp(app);
      const other = new Database(file);
      try {
        other.exec('BEGIN IMMEDIATE');
        const answer = await send();
        expect(answer.status).toBe(503);
        expect(answer.headers['content-type']).toBe(PROBLEM);
        expect(JSON.stringify(answer.body)).not.toContain(path.split('/').pop()!);
        other.exec('ROLLBACK');
      } finally {
        other.close();
      }
      await expectNothingWritten(app, token);
      expect((await send().expect(200)).body).toEqual({
        outcome: 'created',
        title_id: 1,
        episodes_watched: 3,
      });
    } finally {
      await app.close();
    }
  });

  it('MariaDB stopped: 503 within the timeout, nothing written, then created', async () => {
    const db = await PrivateMariaDb.start();
    const app = await createTestApp({ DATABASE_URL: db.url, DATABASE_TIMEOUT_MS: '1000' });
    try {
      const { token, send } = await setUp(app);
      db.signal('SIGSTOP');
      try {
        const answer = await send();
        expect(answer.status).toBe(503);
        expect(answer.headers['content-type']).toBe(PROBLEM);
        expect(answer.body).toMatchObject({ status: 503, success: false });
      } finally {
        db.signal('SIGCONT');
      }
      await expectNothingWritten(app, token);
      expect((await send().expect(200)).body.outcome).toBe('created');
    } finally {
      await app.close();
      await db.destroy();
    }
  }, 90_000);
});
