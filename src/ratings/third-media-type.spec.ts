import { ApiValidationPipe } from '../common/api-validation.pipe';
import { ProblemException } from '../common/problem';
import { rawInteger } from '../database/raw-values';
import { ANIME } from '../media-types/anime.descriptor';
import { ENTRY_COLUMNS, entryDefaults, type EntryColumn } from '../media-types/entry-columns';
import { compileRowToView, entryFieldsOfType } from '../media-types/entry-mapping';
import { MANGA } from '../media-types/manga.descriptor';
import type { MediaType } from '../media-types/media-type';
import type { MediaTypeDescriptor } from '../media-types/media-type.descriptor';
import { statisticsOf } from '../media-types/statistics';
import { putDtoClass, viewClass } from './dto/entry-classes';
import { otherMediaFieldExplainer } from './rating-fields';
import { countChecksOf, countErrors } from './rating-rules';

// docs/extending.md "Add a third media type": a light-novel descriptor, data alone, run through the machinery
// that makes the classes, views, rules and statistics of the registered ones. The recipe itself
// (registered, migrated, served) is applied in a scratch copy by test/recipes.e2e-spec.ts.

const LIGHT_NOVEL = {
  name: 'light_novel',
  scope: 'ratings.light_novel',
  ownFields: {
    volumes_read: {
      column: 'volumes_read',
      description: "Volumes read: at most the title's volume count when known, else at most 1000.",
    },
    is_rereading: { column: 'is_repeating', description: 'Currently rereading.' },
    times_reread: { column: 'times_repeated', description: 'Number of rereads.' },
  },
  counts: [
    { field: 'volumes_read', titleCount: 'volumes', what: 'volume count', unknownCap: 1000 },
  ],
  catalogCounts: ['volumes'],
  formats: ['novel'],
  putExample: { status: 'ongoing', volumes_read: 3 },
  statistics: {
    verb: 'read',
    ongoing: 'reading',
    examples: [1, 0, 0, 0, 0, 80],
    sums: {
      volumes: {
        description: 'Sum of volumes_read',
        example: 3,
        of: (row) => rawInteger(row?.volumes),
      },
    },
  },
  history: { progress: ['volumes_read'], repeating: 'is_rereading' },
  mal: null,
} as const satisfies MediaTypeDescriptor<'light_novel'>;

const PutLightNovelRatingDto = putDtoClass(LIGHT_NOVEL);
type LightNovelRatingView = Record<string, unknown>;

describe('a third media type, from its descriptor alone', () => {
  it('has the shared fields and its own, in column order, under its own names', () => {
    // Every shared column under its own name, and the descriptor's, in the list's order.
    const own = new Map(
      Object.entries(LIGHT_NOVEL.ownFields).map(([name, { column }]) => [column as string, name]),
    );
    const expected = ENTRY_COLUMNS.flatMap(({ column, kind }) =>
      kind === 'shared' ? [column] : own.has(column) ? [own.get(column)!] : [],
    );
    expect(entryFieldsOfType(LIGHT_NOVEL).map(({ name }) => name)).toEqual(expected);
    expect(expected).toEqual(expect.arrayContaining(['status', 'volumes_read', 'is_rereading']));
    expect(expected).not.toContain('episodes_watched');
  });

  it('has its own classes, named after it, with its fields', () => {
    expect(PutLightNovelRatingDto.name).toBe('PutLightNovelRatingDto');
    expect(viewClass(LIGHT_NOVEL).name).toBe('LightNovelRatingView');
  });

  it('maps a read row to its view: its fields, booleans as booleans, UTC timestamps', () => {
    const toView = compileRowToView<LightNovelRatingView>(entryFieldsOfType(LIGHT_NOVEL));
    const stored: Record<string, unknown> = {
      status: 'ongoing',
      is_visible: 1,
      public_rating: 8,
      public_fraction: 5,
      personal_rating: 90,
      volumes_read: 3,
      start_date: '2024-01-02',
      is_repeating: 1,
      times_repeated: 2,
      notes: 'notes',
      priority: 1,
    };
    const row = [
      7,
      70,
      'Spice and Wolf',
      ...(ENTRY_COLUMNS as readonly EntryColumn[]).map(({ column, default: value }) =>
        column in stored ? stored[column] : value === true ? 1 : value,
      ),
      '2024-01-02 10:00:00.000',
      new Date('2024-01-03T08:30:00Z'),
    ];
    expect(toView(row)).toMatchObject({
      id: 7,
      external_id: 70,
      title: 'Spice and Wolf',
      status: 'ongoing',
      is_visible: true,
      public_rating: 8,
      public_fraction: 5,
      personal_rating: 90,
      volumes_read: 3,
      start_date: '2024-01-02',
      end_date: null,
      is_rereading: true,
      times_reread: 2,
      notes: 'notes',
      priority: 1,
      created_at: '2024-01-02T10:00:00Z',
      updated_at: '2024-01-03T08:30:00Z',
    });
    expect(Object.keys(toView(row))).toEqual([
      'id',
      'external_id',
      'title',
      ...entryFieldsOfType(LIGHT_NOVEL).map(({ name }) => name),
      'created_at',
      'updated_at',
    ]);
  });

  it("validates a PUT body with its DTO and names other types' fields", async () => {
    const pipe = new ApiValidationPipe({
      expectedType: PutLightNovelRatingDto,
      explainUnknownField: otherMediaFieldExplainer(LIGHT_NOVEL, [ANIME, MANGA, LIGHT_NOVEL]),
    });
    const metadata = { type: 'body' as const, metatype: PutLightNovelRatingDto };
    await expect(
      pipe.transform({ status: 'ongoing', volumes_read: 2, is_rereading: false }, metadata),
    ).resolves.toBeInstanceOf(PutLightNovelRatingDto);
    const refused = await pipe
      .transform(
        { status: 'ongoing', episodes_watched: 1, chapters_read: 1, times_reread: -1 },
        metadata,
      )
      .catch((error: ProblemException) => error.problem.errors);
    expect(refused).toEqual(
      expect.arrayContaining([
        {
          field: 'episodes_watched',
          message: 'is an anime field; light_novel entries do not have it',
        },
        { field: 'chapters_read', message: 'is a manga field; light_novel entries do not have it' },
        { field: 'times_reread', message: 'must be an integer from 0 to 1000' },
      ]),
    );
  });

  it("bounds its counts by the title's count, or by its cap when unknown", () => {
    const checks = countChecksOf(LIGHT_NOVEL);
    const entry = { ...entryDefaults(), status: 'ongoing' as const, volumesRead: 12 };
    expect(countErrors(checks, entry, { episodes: null, chapters: null, volumes: 12 })).toEqual([]);
    expect(countErrors(checks, entry, { episodes: null, chapters: null, volumes: 10 })).toEqual([
      { field: 'volumes_read', message: "must be at most 10, the title's volume count" },
    ]);
    expect(
      countErrors(
        checks,
        { ...entry, volumesRead: 1001 },
        { episodes: null, chapters: null, volumes: null },
      ),
    ).toEqual([
      {
        field: 'volumes_read',
        message: "must be at most 1000 (the title's volume count is unknown)",
      },
    ]);
  });

  it('computes its profile statistics from the list totals', () => {
    const totals = {
      media_type: LIGHT_NOVEL.name as MediaType,
      ongoing: '2',
      completed: 0,
      on_hold: 0,
      dropped: 0,
      bookmark: 0,
      score_sum: 175,
      scored: 2,
      episodes: 0,
      chapters: 0,
      volumes: '9',
      repeats: 0,
      episode_minutes: 0,
    };
    const none = { completed: 0, on_hold: 0, dropped: 0, bookmark: 0 };
    expect(statisticsOf(LIGHT_NOVEL, totals)).toEqual({
      reading: 2,
      ...none,
      average: 88,
      volumes: 9,
    });
    expect(statisticsOf(LIGHT_NOVEL, undefined)).toEqual({
      reading: 0,
      ...none,
      average: 0,
      volumes: 0,
    });
  });

  it('refuses a descriptor that names a column entries do not have', () => {
    expect(() =>
      entryFieldsOfType({
        ...LIGHT_NOVEL,
        ownFields: { pages_read: { column: 'pages_read' as 'volumes_read', description: '' } },
      }),
    ).toThrow('light_novel.pages_read: "pages_read" is not an own column of entries');
  });
});
