import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { anime, createUser, importTitles, issueToken, manga } from './factories';
import { runCli } from './utils/cli';
import { api, useTestApp } from './utils/test-app';
import { tempDir } from './utils/test-services';

describe('lists export | import (admin CLI, contract §13)', () => {
  let app: NestFastifyApplication;
  const workDir = tempDir('ratings-lists-');

  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, [anime(1), anime(2), manga(1)]);
  });

  it('exports to standard output or a file, and imports into another user with the same summary as the endpoint', async () => {
    const alice = await createUser(app, 'alice');
    const aliceToken = await issueToken(app, alice);
    await api(app, aliceToken)
      .put('/v1/my/anime/1/ratings', { status: 'completed', public_rating: 8, notes: 'a & b' })
      .expect(200);
    await api(app, aliceToken).put('/v1/my/anime/2/ratings', { status: 'ongoing' }).expect(200);

    const stdout = await runCli(['lists', 'export', '--user', 'alice', '--media-type', 'anime']);
    expect(stdout.code).toBe(0);
    expect(stdout.stdout.startsWith('<?xml')).toBe(true);
    expect(stdout.stdout.trimEnd().endsWith('</myanimelist>')).toBe(true);
    const file = join(workDir, 'animelist.xml');
    const toFile = await runCli([
      'lists',
      'export',
      '--user',
      'alice',
      '--media-type',
      'anime',
      '--out',
      file,
    ]);
    expect(toFile).toMatchObject({ code: 0, stdout: '' });
    expect(readFileSync(file, 'utf8')).toBe(stdout.stdout);

    const bob = await createUser(app, 'bob');
    const imported = await runCli([
      'lists',
      'import',
      '--user',
      'bob',
      '--media-type',
      'anime',
      file,
    ]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
      skipped: [],
    });
    const bobToken = await issueToken(app, bob);
    const strip = (entries: Record<string, unknown>[]) =>
      entries.map(
        ({ created_at, updated_at, ...rest }) => (void created_at, void updated_at, rest),
      );
    expect(strip((await api(app, bobToken).get('/v1/my/anime/ratings')).body)).toEqual(
      strip((await api(app, aliceToken).get('/v1/my/anime/ratings')).body),
    );

    const gz = join(workDir, 'animelist.xml.gz');
    writeFileSync(gz, gzipSync(readFileSync(file)));
    const again = await runCli(['lists', 'import', '--user', 'bob', '--media-type', 'anime', gz]);
    expect(JSON.parse(again.stdout)).toEqual({ created: 0, updated: 0, unchanged: 2, skipped: [] });
  }, 120_000);

  it('exits non-zero with the reason, changing nothing, where the endpoint answers 4xx', async () => {
    const carol = await createUser(app, 'carol');
    const token = await issueToken(app, carol);
    const file = (name: string, content: string) => {
      const path = join(workDir, name);
      writeFileSync(path, content);
      return path;
    };
    const mangaList = file(
      'mangalist.xml',
      '<myanimelist><myinfo><user_export_type>2</user_export_type></myinfo><manga><manga_mangadb_id>9001</manga_mangadb_id><my_status>Reading</my_status></manga></myanimelist>',
    );
    const dtd = file(
      'dtd.xml',
      '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "b">]>\n<myanimelist/>',
    );
    const cases: [string[], RegExp][] = [
      [['--user', 'carol', '--media-type', 'anime', mangaList], /manga list/],
      [['--user', 'carol', '--media-type', 'anime', dtd], /line 2: a document type declaration/],
      [['--user', 'nobody', '--media-type', 'manga', mangaList], /no user is named "nobody"/],
      [['--user', 'carol', '--media-type', 'books', mangaList], /anime or manga/],
      [['--user', 'carol', '--media-type', 'anime', join(workDir, 'missing.xml')], /cannot read/],
    ];
    for (const [args, reason] of cases) {
      const result = await runCli(['lists', 'import', ...args]);
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expect(result.stderr).toMatch(reason);
      expect(result.stdout).toBe('');
    }
    expect((await api(app, token).get('/v1/my/anime/ratings')).body).toEqual([]);
    const ok = await runCli([
      'lists',
      'import',
      '--user',
      'carol',
      '--media-type',
      'manga',
      mangaList,
    ]);
    expect(JSON.parse(ok.stdout)).toEqual({ created: 1, updated: 0, unchanged: 0, skipped: [] });
  }, 180_000);
});
