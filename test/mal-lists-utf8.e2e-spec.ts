import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { anime, createUserWithToken, importTitles } from './factories';
import { expectProblem } from './utils/problem';
import { api, USER_AGENT, useTestApp } from './utils/test-app';

/** A MyAnimeList anime export whose my_comments (on line 5) holds `comment` as raw bytes. */
function fileWith(comment: Buffer, padding = ''): Buffer {
  return Buffer.concat([
    Buffer.from(
      '<?xml version="1.0" encoding="UTF-8" ?>\n<myanimelist>\n' +
        '<myinfo><user_id>1</user_id><user_name>someone</user_name><user_export_type>1</user_export_type></myinfo>\n' +
        `<!--${padding}-->\n<anime><series_animedb_id>5114</series_animedb_id><my_status>Completed</my_status><my_comments>`,
    ),
    comment,
    Buffer.from('</my_comments></anime>\n</myanimelist>\n'),
  ]);
}

/** Contract §13: XML that is not valid UTF-8 is 400 with its line, like XML not well formed (issue 30 item 9). */
describe('MyAnimeList import of bytes that are not UTF-8', () => {
  let app: NestFastifyApplication;

  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, [anime(1, { externalId: 5114, episodes: 64 })]);
  });

  const importInto = (token: string, body: Buffer, gzip: boolean) => {
    const test = request(app.getHttpServer())
      .post('/v1/my/anime/import')
      .set('User-Agent', USER_AGENT)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/xml');
    if (gzip) void test.set('Content-Encoding', 'gzip');
    return test.send(gzip ? gzipSync(body) : body);
  };
  const entries = async (token: string) =>
    (await api(app, token).get('/v1/my/anime/ratings').expect(200)).body as { notes: string }[];

  const bytes = (...values: number[]) => Buffer.from(values);
  const invalid: [string, Buffer, string][] = [
    ['a byte that never starts a character (0xFF)', bytes(0x61, 0xff, 0x62), 'line 5'],
    ['Latin-1 text ("Café" as 0xE9)', Buffer.from('Café', 'latin1'), 'line 5'],
    ['a lead byte without its continuation', bytes(0xc3, 0x28), 'line 5'],
    ['a continuation byte alone', bytes(0x80), 'line 5'],
    ['an overlong encoding of "/"', bytes(0xc0, 0xaf), 'line 5'],
    ['an encoded UTF-16 surrogate', bytes(0xed, 0xa0, 0x80), 'line 5'],
    ['a code point above U+10FFFF', bytes(0xf4, 0x90, 0x80, 0x80), 'line 5'],
    ['a character cut by a newline', bytes(0xe6, 0x97, 0x0a, 0xa5), 'line 5'],
  ];

  for (const gzip of [false, true]) {
    describe(gzip ? 'gzip' : 'plain', () => {
      it.each(invalid)('%s: 400 naming the line, nothing written', async (_name, comment, line) => {
        const { token } = await createUserWithToken(app);
        const response = await importInto(token, fileWith(comment), gzip);
        expectProblem(response, 400);
        expect(response.body.detail).toBe(
          `Not a readable MyAnimeList export: ${line}: the file is not valid UTF-8`,
        );
        expect(await entries(token)).toEqual([]);
      });

      it('a file that ends inside a character: 400 on its last line', async () => {
        const { token } = await createUserWithToken(app);
        const cut = Buffer.concat([fileWith(Buffer.from('ok')), bytes(0xf0, 0x9f, 0x98)]);
        const response = await importInto(token, cut, gzip);
        expectProblem(
          response,
          400,
          /^Not a readable MyAnimeList export: line 7: .*not valid UTF-8/,
        );
        expect(await entries(token)).toEqual([]);
      });

      it('an XML error on an earlier line is the one reported', async () => {
        const { token } = await createUserWithToken(app);
        const file = Buffer.from(
          fileWith(bytes(0xff)).toString('latin1').replace('<myanimelist>', '<myanimelist><a></b>'),
          'latin1',
        );
        const response = await importInto(token, file, gzip);
        expectProblem(response, 400, /^Not a readable MyAnimeList export: line 2: /);
      });

      it('valid UTF-8 of every length, across chunk boundaries, with a byte order mark: imported as sent', async () => {
        const { token } = await createUserWithToken(app);
        const notes = 'Café 日本 😀 ÿ';
        // About 200 KB of 1- to 4-byte characters: the body arrives, or inflates, in several chunks
        // that end inside characters.
        const padding = 'a é 日 😀 '.repeat(12_000);
        const file = Buffer.concat([
          bytes(0xef, 0xbb, 0xbf),
          fileWith(Buffer.from(notes), padding),
        ]);
        const response = await importInto(token, file, gzip).expect(200);
        expect(response.body).toMatchObject({ created: 1, skipped: [] });
        expect((await entries(token)).map((entry) => entry.notes)).toEqual([notes]);
      });
    });
  }
});
