import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { anime, createUserWithToken, importTitles } from './factories';
import { expectProblem } from './utils/problem';
import { api, USER_AGENT, useTestApp } from './utils/test-app';

/** A body in each content coding a client might send, and the answer's status where unsupported. */
function encoded(body: string): [string, Buffer][] {
  return [
    ['gzip', gzipSync(body)],
    ['br', brotliCompressSync(body)],
    ['x-made-up', Buffer.from(body)],
    // The header lies: the body is plain. It must not be read as if the header were absent.
    ['gzip', Buffer.from(body)],
    ['identity, gzip', gzipSync(body)],
  ];
}

/** Sends a Buffer as it is: superagent would turn it into JSON for a JSON or form Content-Type. */
const asIs = (data: unknown) => data as string;

const MAL_FILE =
  '<?xml version="1.0" encoding="UTF-8" ?>\n<myanimelist>\n' +
  '<myinfo><user_id>1</user_id><user_name>someone</user_name><user_export_type>1</user_export_type></myinfo>\n' +
  '<anime><series_animedb_id>5114</series_animedb_id><my_status>Completed</my_status></anime>\n' +
  '</myanimelist>\n';

/** Contract §2 step 7 and §13: a Content-Encoding the endpoint does not decode is 415 (issue 30 item 9). */
describe('Content-Encoding of request bodies', () => {
  let app: NestFastifyApplication;

  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, [anime(1, { externalId: 5114, episodes: 64 })]);
  });

  const expectRefused = (response: request.Response, coding: string) => {
    const problem = expectProblem(response, 415, /^Content-Encoding ".+" is not supported/);
    expect(problem.body.detail).toContain(coding.replace(/^identity, /, ''));
  };

  describe('PUT of a rating (JSON)', () => {
    const body = JSON.stringify({ status: 'completed', public_rating: 8 });
    const put = (token: string | undefined, coding: string | undefined, payload: Buffer) => {
      const test = api(app, token)
        .put('/v1/my/anime/1/ratings')
        .set('Content-Type', 'application/json');
      if (coding !== undefined) void test.set('Content-Encoding', coding);
      return test.serialize(asIs).send(payload);
    };

    it.each(encoded(body))('%s: 415 problem+json, nothing written', async (coding, payload) => {
      const { token } = await createUserWithToken(app);
      const response = await put(token, coding, payload);
      expectRefused(response, coding);
      expect(response.headers['accept-encoding']).toBe('identity');
      expect((await api(app, token).get('/v1/my/anime/ratings').expect(200)).body).toEqual([]);
    });

    it('identity, in any letter case, or no Content-Encoding: the body is read', async () => {
      const { token } = await createUserWithToken(app);
      for (const coding of [undefined, 'identity', 'Identity']) {
        await put(token, coding, Buffer.from(body)).expect(200);
      }
    });

    it('a header without a body is not refused: DELETE with Content-Encoding', async () => {
      const { token } = await createUserWithToken(app);
      await api(app, token)
        .delete('/v1/my/anime/1/ratings')
        .set('Content-Encoding', 'br')
        .expect(404);
    });
  });

  describe('OAuth token endpoint (form)', () => {
    const form = 'grant_type=authorization_code&code=nope&client_id=nobody';
    const post = (coding: string | undefined, payload: Buffer) => {
      const test = request(app.getHttpServer())
        .post('/oauth/token')
        .set('Content-Type', 'application/x-www-form-urlencoded');
      if (coding !== undefined) void test.set('Content-Encoding', coding);
      return test.serialize(asIs).send(payload);
    };

    it.each(encoded(form))('%s: 415 problem+json', async (coding, payload) => {
      expectRefused(await post(coding, payload), coding);
    });

    it('identity: the form is read (an OAuth error about the client, not about the body)', async () => {
      for (const coding of [undefined, 'identity']) {
        const response = await post(coding, Buffer.from(form));
        expect(response.status).not.toBe(415);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.body.error).toBe('invalid_client');
      }
    });

    it('the sign-in form post too: 415', async () => {
      const response = await request(app.getHttpServer())
        .post('/oauth/authorize')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .set('Content-Encoding', 'gzip')
        .serialize(asIs)
        .send(gzipSync('username=a&password=b'));
      expectRefused(response, 'gzip');
    });
  });

  describe('MyAnimeList import (decodes gzip itself)', () => {
    const importInto = (token: string | undefined, coding: string | undefined, payload: Buffer) => {
      const test = request(app.getHttpServer())
        .post('/v1/my/anime/import')
        .set('User-Agent', USER_AGENT)
        .set('Content-Type', 'application/xml');
      if (token) void test.set('Authorization', `Bearer ${token}`);
      if (coding !== undefined) void test.set('Content-Encoding', coding);
      return test.send(payload);
    };

    it.each([
      ['gzip', gzipSync(MAL_FILE)],
      ['GZIP', gzipSync(MAL_FILE)],
      ['identity, gzip', gzipSync(MAL_FILE)],
      ['identity', Buffer.from(MAL_FILE)],
    ])('%s: imported', async (coding, payload) => {
      const { token } = await createUserWithToken(app);
      const response = await importInto(token, coding, payload).expect(200);
      expect(response.body).toMatchObject({ created: 1, skipped: [] });
    });

    it.each([
      ['br', brotliCompressSync(MAL_FILE)],
      ['compress', Buffer.from(MAL_FILE)],
      ['gzip, gzip', gzipSync(gzipSync(MAL_FILE))],
    ])('%s: 415 naming gzip as the one it takes', async (coding, payload) => {
      const { token } = await createUserWithToken(app);
      const response = await importInto(token, coding, payload);
      expectProblem(response, 415, /Content-Encoding: gzip/);
      expect(response.headers['accept-encoding']).toBe('gzip, identity');
      expect((await api(app, token).get('/v1/my/anime/ratings').expect(200)).body).toEqual([]);
    });

    it('checks the token before the encoding, as it reads the body after the pipeline', async () => {
      await importInto(undefined, 'br', brotliCompressSync(MAL_FILE)).expect(401);
    });
  });
});
