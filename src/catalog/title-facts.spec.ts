import { CatalogFileError, parseCatalogFile } from './catalog-file';
import { offlineTitleOf } from './offline-database';

const parseOne = (record: Record<string, unknown>) =>
  parseCatalogFile(JSON.stringify([{ media_type: 'anime', id: 1, title: 'T', ...record }]))[0]
    .facts!;

describe('catalog facts of the catalog file (contract §22)', () => {
  it('reads year, season, format and tags; absent or null members are null, tags []', () => {
    expect(
      parseOne({ year: 2019, season: 'spring', format: 'tv', tags: ['Action', 'drama'] }),
    ).toEqual({ year: 2019, season: 'spring', format: 'tv', tags: ['action', 'drama'] });
    expect(parseOne({})).toEqual({ year: null, season: null, format: null, tags: [] });
    expect(parseOne({ year: null, season: null, format: null, tags: null })).toEqual({
      year: null,
      season: null,
      format: null,
      tags: [],
    });
  });

  it('lower-cases tags, drops later duplicates, then applies the limits in code points', () => {
    const tags = ['B', 'a', 'b', 'A', 'c'];
    expect(parseOne({ tags }).tags).toEqual(['b', 'a', 'c']);
    // 64 astral characters are 128 UTF-16 units but 64 code points: accepted.
    const astral = '😀'.repeat(64);
    expect(parseOne({ tags: [astral] }).tags).toEqual([astral]);
    // 101 tags that are 100 after lower-casing: accepted.
    const many = [...Array.from({ length: 100 }, (_, i) => `t${i}`), 'T0'];
    expect(parseOne({ tags: many }).tags).toHaveLength(100);
  });

  it.each([
    [{ year: 1899 }, 'year'],
    [{ year: 2101 }, 'year'],
    [{ year: 2019.5 }, 'year'],
    [{ year: '2019' }, 'year'],
    [{ season: 'autumn' }, 'season'],
    [{ season: 'Spring' }, 'season'],
    [{ format: 'manga' }, 'format'],
    [{ format: 'TV' }, 'format'],
    [{ tags: 'action' }, 'tags'],
    [{ tags: [1] }, 'tags'],
    [{ tags: [''] }, 'tags'],
    [{ tags: ['x'.repeat(65)] }, 'tags'],
    [{ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'tags'],
  ])('fails the file for %j, naming %s', (record, member) => {
    expect(() => parseOne(record)).toThrow(CatalogFileError);
    expect(() => parseOne(record)).toThrow(new RegExp(`record 1 .*${member}`));
  });

  it("checks format against the record's media type", () => {
    const [manga] = parseCatalogFile(
      JSON.stringify([{ media_type: 'manga', id: 1, title: 'M', format: 'one_shot' }]),
    );
    expect(manga.facts?.format).toBe('one_shot');
    expect(() =>
      parseCatalogFile(JSON.stringify([{ media_type: 'manga', id: 1, title: 'M', format: 'tv' }])),
    ).toThrow(/format/);
  });
});

describe('catalog facts of anime-offline-database items (contract §22)', () => {
  const item = (fields: Record<string, unknown>) =>
    offlineTitleOf({ sources: ['https://myanimelist.net/anime/1'], title: 'T', ...fields })!;

  it('maps animeSeason, type and tags', () => {
    expect(
      item({
        animeSeason: { season: 'SPRING', year: 2019 },
        type: 'TV',
        tags: ['Action', 'action', 'Drama'],
      }).facts,
    ).toEqual({ year: 2019, season: 'spring', format: 'tv', tags: ['action', 'drama'] });
  });

  it('turns UNDEFINED, UNKNOWN, 0 and out-of-range years into null, and never skips the item', () => {
    for (const year of [0, 1899, 2101, undefined, '2019']) {
      expect(item({ animeSeason: { season: 'UNDEFINED', year }, type: 'UNKNOWN' }).facts).toEqual({
        year: null,
        season: null,
        format: null,
        tags: [],
      });
    }
    expect(item({}).facts).toEqual({ year: null, season: null, format: null, tags: [] });
  });

  it('drops tags longer than 64 characters, then keeps the first 100', () => {
    const long = 'x'.repeat(65);
    const tags = [long, ...Array.from({ length: 120 }, (_, i) => `t${i}`)];
    const facts = item({ tags }).facts;
    expect(facts.tags).toHaveLength(100);
    expect(facts.tags[0]).toBe('t0');
    expect(facts.tags).not.toContain(long);
  });
});
