import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { CatalogFileError, parseCatalogFile } from '../src/catalog/catalog-file';
import { CatalogService } from '../src/catalog/catalog.service';
import { TitleCrossRefsStore } from '../src/catalog/title-cross-refs';
import { anime, importTitles } from './factories';
import { useTestApp } from './utils/test-app';
import { tempDir } from './utils/test-services';

/** contract §21 "Catalog cross-references": ids (anilist, anidb, kitsu) and synonyms of titles. */
describe('catalog cross-references', () => {
  let app: NestFastifyApplication;
  useTestApp((created) => (app = created));
  const refs = () => app.get(TitleCrossRefsStore);
  const stored = () =>
    app
      .get(DataSource)
      .query('SELECT kind, ref_id, title_id FROM title_refs ORDER BY title_id, kind');

  it('the generic file: ids and synonyms are read, and a repeated id is refused naming both records', () => {
    const [record] = parseCatalogFile(
      JSON.stringify([
        {
          media_type: 'anime',
          id: 1,
          title: 'Sousou no Frieren',
          ids: { anilist: 154587, anidb: 17617, kitsu: 46474 },
          synonyms: ['Frieren'],
        },
      ]),
    );
    expect(record.crossRefs).toEqual({
      ids: { anilist: 154587, anidb: 17617, kitsu: 46474 },
      synonyms: ['Frieren'],
    });
    const twice = JSON.stringify([
      { media_type: 'anime', id: 1, title: 'A', ids: { anilist: 5 } },
      { media_type: 'anime', id: 2, title: 'B', ids: { anilist: 5 } },
    ]);
    expect(() => parseCatalogFile(twice)).toThrow(/id 2.*anilist 5.*id 1/);
    expect(() =>
      parseCatalogFile(
        JSON.stringify([{ media_type: 'anime', id: 1, title: 'A', ids: { kitsu: -1 } }]),
      ),
    ).toThrow(CatalogFileError);
    expect(() =>
      parseCatalogFile(JSON.stringify([{ media_type: 'anime', id: 1, title: 'A', synonyms: 'A' }])),
    ).toThrow(/synonyms/);
  });

  it('the generic import: an id held by a stored title outside the file refuses the file whole', async () => {
    await importTitles(app, [
      anime(1, { crossRefs: { ids: { anilist: 10 }, synonyms: ['One'] } }),
      anime(2),
    ]);
    await expect(
      importTitles(app, [
        anime(2, { title: 'Renamed', crossRefs: { ids: { anilist: 10 }, synonyms: [] } }),
      ]),
    ).rejects.toThrow(/anime id 2: ids.anilist 10 already belongs to anime id 1/);
    expect(await refs().titlesNamed('anime', 'Anime 2')).toEqual([2]);
    expect(await refs().titleOfRef('anime', 'anilist', 10)).toBe(1);
    // Both in the file: the ids move.
    await importTitles(app, [
      anime(1, { crossRefs: { ids: {}, synonyms: [] } }),
      anime(2, { crossRefs: { ids: { anilist: 10 }, synonyms: ['Two'] } }),
    ]);
    expect(await refs().titleOfRef('anime', 'anilist', 10)).toBe(2);
    expect(await refs().titlesNamed('anime', 'one')).toEqual([]);
    expect(await refs().titlesNamed('anime', ' TWO ')).toEqual([2]);
  });

  it('anime-offline-database: the first source of each kind; a later item does not get a taken id', async () => {
    const file = join(tempDir('ratings-xref-'), 'aod.json');
    const item = (mal: number, title: string, sources: string[], synonyms: string[] = []) => ({
      sources: [`https://myanimelist.net/anime/${mal}`, ...sources],
      title,
      type: 'TV',
      episodes: 12,
      status: 'FINISHED',
      synonyms,
    });
    writeFileSync(
      file,
      JSON.stringify({
        data: [
          item(
            100,
            'Alpha',
            [
              'https://anilist.co/anime/10',
              'https://anilist.co/anime/11',
              'https://anidb.net/anime/20',
            ],
            ['The First', 42 as unknown as string],
          ),
          item(101, 'Beta', ['https://anilist.co/anime/10', 'https://kitsu.io/anime/30']),
          item(102, 'Gamma', ['https://kitsu.app/anime/31']),
        ],
      }),
    );
    expect(await app.get(CatalogService).importOfflineDatabase(file)).toMatchObject({ created: 3 });
    const ids = new Map(
      (await app.get(DataSource).query('SELECT id, external_id FROM titles')).map(
        (row: { id: number; external_id: number }) => [Number(row.external_id), Number(row.id)],
      ),
    );
    expect(
      (await stored()).map((row: Record<string, unknown>) => [
        row.kind,
        Number(row.ref_id),
        Number(row.title_id),
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['anilist', 10, ids.get(100)],
        ['anidb', 20, ids.get(100)],
        ['kitsu', 30, ids.get(101)],
        ['kitsu', 31, ids.get(102)],
      ]),
    );
    expect(await stored()).toHaveLength(4);
    expect(await refs().titlesNamed('anime', 'the first')).toEqual([ids.get(100)]);
    // Imported again: unchanged, the ids kept.
    await app.get(CatalogService).importOfflineDatabase(file);
    expect(await stored()).toHaveLength(4);
  });
});
