import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import { Title } from '../src/catalog/title.entity';
import { anime, createUserWithToken, importTitles } from './factories';
import { runCli } from './utils/cli';
import { api, resetDatabase, useTestApp } from './utils/test-app';
import { tempDir } from './utils/test-services';

const SAMPLE = join(__dirname, '..', 'examples', 'anime-offline-database.sample.json');

function item(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    sources: [],
    title: 'Untitled',
    type: 'TV',
    episodes: 12,
    status: 'FINISHED',
    animeSeason: { season: 'SPRING', year: 2020 },
    picture: '',
    thumbnail: '',
    synonyms: [],
    relatedAnime: [],
    tags: [],
    ...fields,
  };
}

describe('catalog import --format anime-offline-database (contract §14)', () => {
  let app: NestFastifyApplication;
  const workDir = tempDir('ratings-aod-');

  useTestApp((created) => (app = created));

  const animeRows = () =>
    app
      .get(DataSource)
      .getRepository(Title)
      .find({ where: { mediaType: 'anime' }, order: { id: 'ASC' } });
  const importFile = (file: string) =>
    runCli(['catalog', 'import', '--format', 'anime-offline-database', file]);

  it('imports the example sample once, then finds it unchanged', async () => {
    const first = await importFile(SAMPLE);
    expect(first.stderr).toBe('');
    expect(JSON.parse(first.stdout)).toEqual({ created: 34, updated: 0, unchanged: 0, skipped: 3 });
    const second = await importFile(SAMPLE);
    expect(JSON.parse(second.stdout)).toEqual({
      created: 0,
      updated: 0,
      unchanged: 34,
      skipped: 3,
    });
    expect(await animeRows()).toHaveLength(34);
  });

  it('maps the fields, keeps internal ids, numbers new titles after the highest, never touches entries', async () => {
    await importTitles(app, [anime(1, { externalId: 100 }), anime(7, { externalId: null })]);
    const { token } = await createUserWithToken(app);
    await api(app, token)
      .put('/v1/my/anime/1/ratings', { status: 'ongoing', episodes_watched: 3 })
      .expect(200);
    const before = (await api(app, token).get('/v1/my/anime/ratings').expect(200)).body;

    const file = join(workDir, 'mapped.json');
    writeFileSync(
      file,
      JSON.stringify({
        data: [
          item({
            sources: [
              'https://anidb.net/anime/1',
              'https://myanimelist.net/anime/100',
              'https://myanimelist.net/anime/999',
            ],
            title: 'Renamed',
            episodes: 26,
            duration: { value: 1410, unit: 'SECONDS' },
          }),
          item({
            sources: ['https://myanimelist.net/anime/200'],
            title: 'Airing',
            status: 'ONGOING',
            episodes: 5,
          }),
          item({
            sources: ['https://myanimelist.net/anime/300'],
            title: 'Zero',
            episodes: 0,
            duration: { value: 29, unit: 'SECONDS' },
          }),
          item({
            sources: ['https://myanimelist.net/anime/400'],
            title: 'Hours',
            duration: { value: 2, unit: 'HOURS' },
          }),
          item({ sources: ['https://kitsu.app/anime/5'], title: 'Not on MyAnimeList' }),
          item({ sources: ['https://myanimelist.net/anime/200'], title: 'Seen before' }),
          item({ sources: ['https://myanimelist.net/anime/500'], title: 42 }),
          item({
            sources: ['https://myanimelist.net/anime/600'],
            title: 'Upcoming',
            status: 'UPCOMING',
          }),
        ],
      }),
    );
    const result = await importFile(file);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ created: 4, updated: 1, unchanged: 0, skipped: 3 });
    const rows = (await animeRows()).map(({ id, externalId, title, episodes, episodeMinutes }) => ({
      id,
      externalId,
      title,
      episodes,
      episodeMinutes,
    }));
    expect(rows).toEqual([
      { id: 1, externalId: 100, title: 'Renamed', episodes: 26, episodeMinutes: 24 },
      { id: 7, externalId: null, title: 'Anime 7', episodes: 24, episodeMinutes: 24 },
      { id: 8, externalId: 200, title: 'Airing', episodes: null, episodeMinutes: null },
      { id: 9, externalId: 300, title: 'Zero', episodes: null, episodeMinutes: 0 },
      { id: 10, externalId: 400, title: 'Hours', episodes: 12, episodeMinutes: null },
      { id: 11, externalId: 600, title: 'Upcoming', episodes: null, episodeMinutes: null },
    ]);
    const after = (await api(app, token).get('/v1/my/anime/ratings').expect(200)).body;
    expect(after).toEqual([{ ...before[0], title: 'Renamed' }]);
  });

  it('reads gzip, and refuses what is not the format, changing nothing', async () => {
    const gz = join(workDir, 'sample.json.gz');
    writeFileSync(gz, gzipSync(readFileSync(SAMPLE)));
    expect(JSON.parse((await importFile(gz)).stdout)).toMatchObject({ created: 34 });
    await resetDatabase(app);

    const cases: [string, string | Buffer, RegExp][] = [
      ['not-json.json', 'this is not JSON', /not JSON/],
      [
        'array.json',
        JSON.stringify([item({ sources: ['https://myanimelist.net/anime/1'] })]),
        /no "data" array/,
      ],
      ['no-data.json', JSON.stringify({ license: {} }), /no "data" array/],
      ['data-object.json', JSON.stringify({ data: { a: 1 } }), /"data" is not an array/],
      [
        'truncated.json',
        `{"data": [${JSON.stringify(item({ sources: ['https://myanimelist.net/anime/1'] }))},`,
        /not JSON/,
      ],
      [
        'broken.json.gz',
        Buffer.concat([gzipSync('{"data": []}').subarray(0, 12), Buffer.from('garbage')]),
        /gzip/,
      ],
    ];
    for (const [name, content, message] of cases) {
      const file = join(workDir, name);
      writeFileSync(file, content);
      const result = await importFile(file);
      expect({ name, code: result.code }).toEqual({ name, code: 1 });
      expect(result.stderr).toMatch(message);
      expect(await animeRows()).toEqual([]);
    }
    const missing = await importFile(join(workDir, 'missing.json'));
    expect(missing.code).toBe(1);
  }, 180_000);

  it('imports a 40,000-item file within a small heap (streamed, never held whole)', async () => {
    const file = join(workDir, 'large.json');
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(file);
      out.on('error', reject);
      out.write('{"license": {"name": "generated"}, "data": [\n');
      for (let i = 1; i <= 40_000; i++) {
        const entry = item({
          sources: [`https://anidb.net/anime/${i}`, `https://myanimelist.net/anime/${i}`],
          title: `Generated title ${i} with some length to it`,
          status: i % 2 ? 'FINISHED' : 'ONGOING',
          duration: { value: 1440, unit: 'SECONDS' },
          synonyms: [`Synonym ${i}`, `Another name ${i}`],
          relatedAnime: [`https://myanimelist.net/anime/${i + 1}`],
          tags: ['action', 'drama', 'fantasy'],
        });
        out.write(`${i === 1 ? '' : ',\n'}${JSON.stringify(entry)}`);
      }
      out.end(']}\n', resolve);
    });
    // About 21 MB of JSON: parsed whole, it would need far more than this heap.
    const result = await runCli(
      ['catalog', 'import', '--format', 'anime-offline-database', file],
      { NODE_OPTIONS: '--max-old-space-size=64' },
      undefined,
      600_000,
    );
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      created: 40000,
      updated: 0,
      unchanged: 0,
      skipped: 0,
    });
    const [{ count }] = await app
      .get(DataSource)
      .query<{ count: number | string }[]>(
        "SELECT COUNT(*) AS count FROM titles WHERE media_type = 'anime'",
      );
    expect(Number(count)).toBe(40000);
  }, 660_000);
});
