import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import request from 'supertest';
import { anime, createUserWithToken, importTitles } from './factories';
import { PrivateMariaDb } from './utils/private-mariadb';
import { api, createTestApp } from './utils/test-app';
import { tempDir } from './utils/test-services';
import { sleep } from './utils/wait';

/** contract §16: the readiness check answers within 2 s, whatever the database does. */
const READY_WITHIN_MS = 2000;

const PROBLEM = 'application/problem+json; charset=utf-8';

function ready(app: NestFastifyApplication) {
  return request(app.getHttpServer()).get('/health/ready').timeout(READY_WITHIN_MS);
}

/**
 * A hung and a killed MariaDB (a server of the test's own, so the suite's server is untouched),
 * and a locked SQLite file: 503 problem+json, never a hang or a 500, and recovery without restart.
 */
describe('database faults (DATABASE_TIMEOUT_MS)', () => {
  describe('MariaDB stopped with SIGSTOP, then killed', () => {
    let db: PrivateMariaDb;
    let app: NestFastifyApplication;
    let token: string;
    const lines: string[] = [];
    const outageLines = () =>
      lines.filter((line) => line.includes('"context":"Database"') && line.includes('"level":50'));

    beforeAll(async () => {
      db = await PrivateMariaDb.start();
      app = await createTestApp({ DATABASE_URL: db.url, DATABASE_TIMEOUT_MS: '1000' }, [], {
        write: (line: string) => void lines.push(line),
      });
      await importTitles(app, [anime(1)]);
      ({ token } = await createUserWithToken(app));
    }, 60_000);

    afterAll(async () => {
      db.signal('SIGCONT');
      await app.close();
      await db.destroy();
    });

    it('answers 503 while the server hangs, and serves again after SIGCONT without a restart', async () => {
      await ready(app).expect(200);
      const first = await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' });
      expect(first.body).toEqual({ success: true });
      expect((await request(app.getHttpServer()).get('/health/live').expect(200)).body).toEqual({
        status: 'ok',
      });

      db.signal('SIGSTOP');
      try {
        const health = await ready(app).expect(503);
        expect(health.headers['content-type']).toBe(PROBLEM);
        expect(health.body).toMatchObject({ status: 503, success: false });
        await request(app.getHttpServer()).get('/health').timeout(READY_WITHIN_MS).expect(503);
        await request(app.getHttpServer()).get('/health/live').expect(200);

        // More requests than the pool has connections: each waits at most DATABASE_TIMEOUT_MS for
        // the query or for a connection, then frees it. The token lookup is among them.
        const answers = await Promise.all(
          Array.from({ length: 15 }, (_, i) =>
            i % 2 === 0
              ? api(app, token).get('/v1/my/anime/1/ratings')
              : api(app, token).put('/v1/my/anime/1/ratings', { status: 'completed' }),
          ),
        );
        for (const answer of answers) {
          expect(answer.status).toBe(503);
          expect(answer.headers['content-type']).toBe(PROBLEM);
          expect(answer.body).toMatchObject({ status: 503, success: false });
          expect(answer.headers['x-request-id']).toBeTruthy();
        }
        // One line for the outage, not one (with a stack) per request.
        await sleep(100);
        expect(outageLines()).toHaveLength(1);
        expect(lines.filter((line) => line.includes('"stack"'))).toEqual([]);
      } finally {
        db.signal('SIGCONT');
      }

      await ready(app).expect(200);
      const after = await api(app, token).get('/v1/my/anime/1/ratings').expect(200);
      expect(after.body[0]).toMatchObject({ status: 'ongoing' });
      await api(app, token).put('/v1/my/anime/1/ratings', { status: 'completed' }).expect(200);
    }, 60_000);

    it('answers 503, not 500, once the server is killed', async () => {
      await db.kill();
      const answers = await Promise.all([
        api(app, token).get('/v1/my/anime/1/ratings'),
        api(app, token).put('/v1/my/anime/1/ratings', { status: 'dropped' }),
        api(app, token).get('/v1/my/profile'),
      ]);
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.headers['content-type']).toBe(PROBLEM);
      }
      await ready(app).expect(503);

      await db.launch();
      await ready(app).expect(200);
      await api(app, token).get('/v1/my/anime/1/ratings').expect(200);
      // At most one more line: this outage's, if the first had been seen to end before.
      expect(outageLines().length).toBeLessThanOrEqual(2);
      expect(lines.filter((line) => line.includes('"stack"'))).toEqual([]);
    }, 60_000);
  });

  describe('SQLite locked by another process', () => {
    const path = join(tempDir('ratings-locked-'), 'ratings.sqlite');
    let app: NestFastifyApplication;
    let token: string;

    beforeAll(async () => {
      app = await createTestApp({ DATABASE_URL: `sqlite:${path}`, DATABASE_TIMEOUT_MS: '300' });
      await importTitles(app, [anime(1)]);
      ({ token } = await createUserWithToken(app));
    });

    afterAll(async () => {
      await app.close();
    });

    it('a write that waits past the busy timeout is 503, and writes again once the lock is gone', async () => {
      const other = new Database(path);
      try {
        other.exec('BEGIN IMMEDIATE');
        const answer = await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' });
        expect(answer.status).toBe(503);
        expect(answer.headers['content-type']).toBe(PROBLEM);
        other.exec('ROLLBACK');
      } finally {
        other.close();
      }
      const first = await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' });
      expect(first.body).toEqual({ success: true });
    });
  });
});
