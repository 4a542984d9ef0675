import { CatalogFileError, parseCatalogFile } from './catalog-file';
import { NO_FACTS } from './title-facts';

const parse = (records: unknown) => parseCatalogFile(JSON.stringify(records));

describe('parseCatalogFile', () => {
  it('reads anime and manga records, missing nullable fields as null', () => {
    expect(
      parse([
        {
          media_type: 'anime',
          id: 1,
          external_id: 5114,
          title: 'FMA:B',
          episodes: 64,
          episode_minutes: 24,
        },
        { media_type: 'manga', id: 1, title: 'Monster', chapters: 162 },
      ]),
    ).toEqual([
      {
        mediaType: 'anime',
        id: 1,
        externalId: 5114,
        title: 'FMA:B',
        episodes: 64,
        episodeMinutes: 24,
        chapters: null,
        volumes: null,
        facts: NO_FACTS,
      },
      {
        mediaType: 'manga',
        id: 1,
        externalId: null,
        title: 'Monster',
        episodes: null,
        episodeMinutes: null,
        chapters: 162,
        volumes: null,
        facts: NO_FACTS,
      },
    ]);
  });

  it('ignores keys it does not know, and null counts of the other media type', () => {
    expect(
      parse([
        {
          media_type: 'manga',
          id: 3,
          title: 'Nana',
          chapters: 84,
          volumes: 21,
          synopsis: 'Two women named Nana',
          episodes: null,
        },
      ]),
    ).toEqual([
      {
        mediaType: 'manga',
        id: 3,
        externalId: null,
        title: 'Nana',
        episodes: null,
        episodeMinutes: null,
        chapters: 84,
        volumes: 21,
        facts: NO_FACTS,
      },
    ]);
  });

  it('allows the same id and external_id in anime and manga (separate id spaces)', () => {
    expect(
      parse([
        { media_type: 'anime', id: 1, external_id: 2, title: 'a' },
        { media_type: 'manga', id: 1, external_id: 2, title: 'm' },
      ]),
    ).toHaveLength(2);
  });

  it.each([
    ['{', /not valid JSON/],
    ['{"media_type":"anime"}', /JSON array/],
  ])('rejects the file %s', (text, message) => {
    expect(() => parseCatalogFile(text)).toThrow(message);
  });

  it.each([
    [[{ media_type: 'book', id: 1, title: 'x' }], /record 1: media_type/],
    [
      [{ media_type: 'anime', id: 0, title: 'x' }],
      /record 1 \(anime id 0\): id must be a positive integer/,
    ],
    [
      [{ media_type: 'anime', id: 2 ** 31, title: 'x' }],
      /id must be a positive integer below 2\^31/,
    ],
    [[{ media_type: 'anime', id: 1.5, title: 'x' }], /id must be a positive integer/],
    [[{ media_type: 'anime', id: 1, title: '' }], /title must be a non-empty string/],
    [[{ media_type: 'anime', id: 1, title: 'x', external_id: -1 }], /external_id must be/],
    [
      [{ media_type: 'anime', id: 1, title: 'x', episodes: '12' }],
      /episodes must be a non-negative integer/,
    ],
    [
      [{ media_type: 'anime', id: 1, title: 'x', chapters: 3 }],
      /chapters is not a field of anime titles/,
    ],
    [
      [{ media_type: 'manga', id: 1, title: 'x', episodes: 3, episode_minutes: 24 }],
      /episodes, episode_minutes are not fields of manga titles/,
    ],
    [
      [
        { media_type: 'anime', id: 1, title: 'x' },
        { media_type: 'anime', id: 1, title: 'y' },
      ],
      /record 2 \(anime id 1\): duplicate id 1/,
    ],
    [
      [
        { media_type: 'manga', id: 1, external_id: 7, title: 'x' },
        { media_type: 'manga', id: 2, external_id: 7, title: 'y' },
      ],
      /record 2 \(manga id 2\): duplicate external_id 7/,
    ],
  ])('names the first bad record: %j', (records, message) => {
    expect(() => parse(records)).toThrow(CatalogFileError);
    expect(() => parse(records)).toThrow(message);
  });
});
