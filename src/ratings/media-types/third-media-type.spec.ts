import { ApiProperty } from '@nestjs/swagger';
import { ApiValidationPipe } from '../../common/api-validation.pipe';
import type { MediaType } from '../../common/media-type';
import { ProblemException } from '../../common/problem';
import { rawInteger } from '../../database/raw-values';
import { PutRatingDto } from '../dto/put-rating.dto';
import { RatingView } from '../dto/rating-view.dto';
import { Count, IntRange, OptionalBoolean } from '../dto/validation-decorators';
import { entryDefaults } from '../entry-columns';
import { compileRowToView, entryFieldsOfType } from '../entry-mapping';
import { otherMediaFieldExplainer } from '../rating-fields';
import { countChecksOf, countErrors } from '../rating-rules';
import { ANIME } from './anime.descriptor';
import { averageScore } from './statistics';
import { MANGA } from './manga.descriptor';
import type { MediaTypeDescriptor } from './media-type.descriptor';

// README "Add a third media type": what a light-novel descriptor and its classes would be. A real
// one adds 'light_novel' to MEDIA_TYPES (no cast then) and registers in MEDIA_TYPE_DESCRIPTORS.

class PutLightNovelRatingDto extends PutRatingDto {
  @Count("Volumes read: at most the title's volume count when known, else at most 1000.")
  readonly volumes_read?: number;

  @OptionalBoolean('Currently rereading.')
  readonly is_rereading?: boolean;

  @IntRange(0, 1000, 'Number of rereads.')
  readonly times_reread?: number;
}

class LightNovelRatingView extends RatingView {
  @ApiProperty({ type: 'integer' }) volumes_read: number;
  @ApiProperty() is_rereading: boolean;
  @ApiProperty({ type: 'integer' }) times_reread: number;
}

class LightNovelStatistics {
  @ApiProperty({ type: 'integer' }) reading: number;
  @ApiProperty({ type: 'integer' }) average: number;
  @ApiProperty({ type: 'integer' }) volumes: number;
}

const LIGHT_NOVEL: MediaTypeDescriptor<MediaType, LightNovelRatingView, LightNovelStatistics> = {
  name: 'light_novel' as MediaType,
  scope: 'ratings.light_novel' as MediaTypeDescriptor['scope'],
  ownFields: {
    volumes_read: 'volumes_read',
    is_rereading: 'is_repeating',
    times_reread: 'times_repeated',
  },
  counts: [
    { field: 'volumes_read', titleCount: 'volumes', what: 'volume count', unknownCap: 1000 },
  ],
  catalogCounts: ['volumes'],
  putDto: PutLightNovelRatingDto,
  putExample: { status: 'ongoing', volumes_read: 3 },
  view: LightNovelRatingView,
  publicView: LightNovelRatingView,
  statistics: {
    view: LightNovelStatistics,
    of: (row) => ({
      reading: rawInteger(row?.ongoing),
      average: averageScore(row),
      volumes: rawInteger(row?.volumes),
    }),
  },
  history: { progress: ['volumes_read'], repeating: 'is_rereading' },
  mal: null,
};

describe('a third media type, from its descriptor alone', () => {
  it('has the shared fields and its own, in column order, under its own names', () => {
    expect(entryFieldsOfType(LIGHT_NOVEL).map(({ name }) => name)).toEqual([
      'status',
      'is_visible',
      'public_rating',
      'public_fraction',
      'personal_rating',
      'volumes_read',
      'start_date',
      'end_date',
      'is_rereading',
      'times_reread',
      'notes',
      'priority',
    ]);
  });

  it('maps a read row to its view: its fields, booleans as booleans, UTC timestamps', () => {
    const toView = compileRowToView<LightNovelRatingView>(entryFieldsOfType(LIGHT_NOVEL));
    const row = [
      7,
      70,
      'Spice and Wolf',
      'ongoing',
      1,
      8,
      5,
      90,
      0,
      0,
      3,
      '2024-01-02',
      null,
      1,
      2,
      0,
      'notes',
      1,
      '2024-01-02 10:00:00.000',
      new Date('2024-01-03T08:30:00Z'),
    ];
    expect(toView(row)).toEqual({
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
      media_type: LIGHT_NOVEL.name,
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
    expect(LIGHT_NOVEL.statistics.of(totals)).toEqual({ reading: 2, average: 88, volumes: 9 });
    expect(LIGHT_NOVEL.statistics.of(undefined)).toEqual({ reading: 0, average: 0, volumes: 0 });
  });

  it('refuses a descriptor that names a column entries do not have', () => {
    expect(() =>
      entryFieldsOfType({ ...LIGHT_NOVEL, ownFields: { pages_read: 'pages_read' } }),
    ).toThrow('light_novel.pages_read: "pages_read" is not an own column of entries');
  });
});
