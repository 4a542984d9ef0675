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

  it('takes year, season, format and tags (contract §22); a re-import updates them, an absent member clears them', async () => {
    const tagRows = () =>
      app
        .get(DataSource)
        .query<{ title_id: number; tag: string }[]>(
          "SELECT title_id, tag FROM title_tags WHERE media_type = 'anime' ORDER BY title_id, position",
        );
    const facts = async () =>
      (await animeRows()).map(({ id, year, season, format }) => ({ id, year, season, format }));
    const file = join(workDir, 'facts.json');
    const write = (items: Record<string, unknown>[]) =>
      writeFileSync(file, JSON.stringify({ data: items }));
    const long = 'y'.repeat(65);
    write([
      item({
        sources: ['https://myanimelist.net/anime/1'],
        animeSeason: { season: 'FALL', year: 2009 },
        type: 'MOVIE',
        tags: ['Action', long, 'action', 'Drama'],
      }),
      item({
        sources: ['https://myanimelist.net/anime/2'],
        animeSeason: { season: 'UNDEFINED', year: 0 },
        type: 'UNKNOWN',
      }),
      item({
        sources: ['https://myanimelist.net/anime/3'],
        animeSeason: { season: 'SUMMER', year: 1800 },
        type: 'SPECIAL',
        tags: 'not an array',
      }),
    ]);
    expect(JSON.parse((await importFile(file)).stdout)).toEqual({
      created: 3,
      updated: 0,
      unchanged: 0,
      skipped: 0,
    });
    expect(await facts()).toEqual([
      { id: 1, year: 2009, season: 'fall', format: 'movie' },
      { id: 2, year: null, season: null, format: null },
      { id: 3, year: null, season: 'summer', format: 'special' },
    ]);
    expect(await tagRows()).toEqual([
      { title_id: 1, tag: 'action' },
      { title_id: 1, tag: 'drama' },
    ]);
    expect(JSON.parse((await importFile(file)).stdout)).toMatchObject({ unchanged: 3 });

    // The same items without season, type and tags: a file describes each title whole.
    write([
      item({
        sources: ['https://myanimelist.net/anime/1'],
        type: undefined,
        animeSeason: undefined,
        tags: ['Comedy'],
      }),
    ]);
    expect(JSON.parse((await importFile(file)).stdout)).toMatchObject({ updated: 1 });
    expect((await facts())[0]).toEqual({ id: 1, year: null, season: null, format: null });
    expect(await tagRows()).toEqual([{ title_id: 1, tag: 'comedy' }]);

    // The generic catalog file: the same members, checked strictly.
    const generic = join(workDir, 'generic.json');
    const record = (fields: Record<string, unknown>) => ({
      media_type: 'anime',
      id: 1,
      external_id: 1,
      title: 'Untitled',
      episodes: 12,
      ...fields,
    });
    writeFileSync(
      generic,
      JSON.stringify([record({ year: 2001, season: 'winter', format: 'ova', tags: ['B', 'a'] })]),
    );
    expect((await runCli(['catalog', 'import', generic])).stderr).toBe('');
    expect((await facts())[0]).toEqual({ id: 1, year: 2001, season: 'winter', format: 'ova' });
    expect(await tagRows()).toEqual([
      { title_id: 1, tag: 'b' },
      { title_id: 1, tag: 'a' },
    ]);
    writeFileSync(generic, JSON.stringify([record({ season: 'autumn' })]));
    const refused = await runCli(['catalog', 'import', generic]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/record 1 .*season/);
    expect((await facts())[0]).toEqual({ id: 1, year: 2001, season: 'winter', format: 'ova' });
    writeFileSync(generic, JSON.stringify([record({ tags: null })]));
    expect((await runCli(['catalog', 'import', generic])).stderr).toBe('');
    expect((await facts())[0]).toEqual({ id: 1, year: null, season: null, format: null });
    expect(await tagRows()).toEqual([]);
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
