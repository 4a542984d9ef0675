import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Title } from '../catalog/title.entity';
import type { MediaType } from '../common/media-type';
import { FieldError, ProblemException } from '../common/problem';
import { nowToTheSecond } from '../common/timestamps';
import { isUniqueViolation } from '../database/errors';
import { rawBoolean, rawIsoSeconds } from '../database/raw-values';
import { selectArrays } from '../database/select-arrays';
import { UsersService } from '../users/users.service';
import type { PutRatingDto } from './dto/put-rating.dto';
import type { AnimeRatingView, MangaRatingView } from './dto/rating-view.dto';
import { RatingEntry, RatingStatus } from './rating-entry.entity';
import { changesFrom, ENTRY_DEFAULTS, EntryFields } from './rating-fields';
import type { TitleRef } from './title-ref';

export type RatingViewOf<M extends MediaType> = M extends 'anime'
  ? AnimeRatingView
  : MangaRatingView;

/** An entry's columns, as the raw read queries return them. */
interface EntryColumns {
  status: RatingStatus;
  is_visible: number | boolean;
  public_rating: number;
  public_fraction: number;
  personal_rating: number;
  episodes_watched: number;
  chapters_read: number;
  volumes_read: number;
  start_date: string | null;
  end_date: string | null;
  is_repeating: number | boolean;
  times_repeated: number;
  repeat_desire: number;
  notes: string;
  priority: number;
  created_at: Date | string;
  updated_at: Date | string;
}

/** One entry with its title's id, external id and name: a row of GET all. */
interface EntryRow extends EntryColumns {
  id: number;
  external_id: number | null;
  title: string;
}

/** The values of an EntryRow, in the column order of ALL_ENTRIES_SQL. */
type EntryValues = [
  EntryRow['id'],
  EntryRow['external_id'],
  EntryRow['title'],
  EntryRow['status'],
  EntryRow['is_visible'],
  EntryRow['public_rating'],
  EntryRow['public_fraction'],
  EntryRow['personal_rating'],
  EntryRow['episodes_watched'],
  EntryRow['chapters_read'],
  EntryRow['volumes_read'],
  EntryRow['start_date'],
  EntryRow['end_date'],
  EntryRow['is_repeating'],
  EntryRow['times_repeated'],
  EntryRow['repeat_desire'],
  EntryRow['notes'],
  EntryRow['priority'],
  EntryRow['created_at'],
  EntryRow['updated_at'],
];

/** A title with the user's entry for it, if any: the row behind GET one, PUT and DELETE. */
type TitleWithEntryRow = EntryRow & {
  entry_id: number | null;
  episodes: number | null;
  chapters: number | null;
  volumes: number | null;
};

const ENTRY_COLUMNS = [
  'status',
  'is_visible',
  'public_rating',
  'public_fraction',
  'personal_rating',
  'episodes_watched',
  'chapters_read',
  'volumes_read',
  'start_date',
  'end_date',
  'is_repeating',
  'times_repeated',
  'repeat_desire',
  'notes',
  'priority',
  'created_at',
  'updated_at',
]
  .map((column) => `e.${column} AS ${column}`)
  .join(', ');

// Constant statements: the hot paths skip TypeORM's per-call query building (see BENCHMARKS.md).
const ALL_ENTRIES_SQL = `SELECT t.id AS id, t.external_id AS external_id, t.title AS title, ${ENTRY_COLUMNS}
  FROM rating_entries e INNER JOIN titles t ON t.media_type = e.media_type AND t.id = e.title_id
  WHERE e.user_id = ? AND e.media_type = ? ORDER BY e.title_id`;

// The first columns are those of ALL_ENTRIES_SQL, in the same order: toView reads both.
const titleWithEntrySql = (titleKey: 'id' | 'external_id') => `SELECT t.id AS id,
  t.external_id AS external_id, t.title AS title, ${ENTRY_COLUMNS}, e.id AS entry_id,
  t.episodes AS episodes, t.chapters AS chapters, t.volumes AS volumes
  FROM titles t LEFT JOIN rating_entries e
    ON e.user_id = ? AND e.media_type = t.media_type AND e.title_id = t.id
  WHERE t.media_type = ? AND t.${titleKey} = ?`;
const TITLE_WITH_ENTRY_SQL = {
  byId: titleWithEntrySql('id'),
  byExternalId: titleWithEntrySql('external_id'),
};

@Injectable()
export class RatingsService {
  constructor(
    @InjectRepository(RatingEntry) private readonly entries: Repository<RatingEntry>,
    private readonly users: UsersService,
  ) {}

  async getOne<M extends MediaType>(
    userId: number,
    mediaType: M,
    ref: TitleRef,
  ): Promise<RatingViewOf<M>[]> {
    const row = await this.titleWithEntry(userId, mediaType, ref, ref.useExternalIdQuery);
    return row.entry_id === null ? [] : [toView(mediaType, Object.values(row))];
  }

  /** Every entry of the media type, in title id order (decisions §7). */
  async getAll<M extends MediaType>(userId: number, mediaType: M): Promise<RatingViewOf<M>[]> {
    const rows = await selectArrays(this.entries.manager.connection, ALL_ENTRIES_SQL, [
      userId,
      mediaType,
    ]);
    return rows.map((values) => toView(mediaType, values));
  }

  /**
   * Creates or updates the user's entry (decisions §6). The cross-field rules run on the entry as
   * it will be stored. A create that loses a race with a concurrent create (unique key) is
   * retried once as an update, so two PUTs never make two entries.
   */
  async put(
    userId: number,
    mediaType: MediaType,
    ref: TitleRef,
    body: PutRatingDto,
  ): Promise<void> {
    const byExternalId = pickExternalIdFlag(ref, body);
    const changes = changesFrom(mediaType, body);

    for (let attempt = 1; ; attempt++) {
      const row = await this.titleWithEntry(userId, mediaType, ref, byExternalId);
      const now = nowToTheSecond();
      if (row.entry_id !== null) {
        checkEntryRules(mediaType, { ...entryFieldsOf(row), ...changes }, row);
        await this.entries.update(
          { id: row.entry_id },
          body.touch ? { ...changes, updatedAt: now } : changes,
        );
        await this.users.listChanged(userId);
        return;
      }
      const entry = { ...ENTRY_DEFAULTS, ...changes, status: body.status };
      checkEntryRules(mediaType, entry, row);
      try {
        await this.entries.insert({
          ...entry,
          userId,
          mediaType,
          titleId: row.id,
          createdAt: now,
          updatedAt: now,
        });
        await this.users.listChanged(userId);
        return;
      } catch (error) {
        if (attempt > 1 || !isUniqueViolation(error)) throw error;
      }
    }
  }

  async remove(userId: number, mediaType: MediaType, ref: TitleRef): Promise<void> {
    const row = await this.titleWithEntry(userId, mediaType, ref, ref.useExternalIdQuery);
    const result = row.entry_id === null ? null : await this.entries.delete({ id: row.entry_id });
    if (!result?.affected) {
      throw ProblemException.notFound(`You have no rating entry for ${mediaType} ${row.id}`);
    }
    await this.users.listChanged(userId);
  }

  /** The title (404 when the catalog has none) and the user's entry for it, in one query. */
  private async titleWithEntry(
    userId: number,
    mediaType: MediaType,
    ref: TitleRef,
    byExternalId = false,
  ): Promise<TitleWithEntryRow> {
    const sql = byExternalId ? TITLE_WITH_ENTRY_SQL.byExternalId : TITLE_WITH_ENTRY_SQL.byId;
    const [row] = await this.entries.query<TitleWithEntryRow[]>(sql, [userId, mediaType, ref.id]);
    if (!row) {
      throw ProblemException.notFound(
        byExternalId
          ? `No ${mediaType} title has external_id ${ref.id}`
          : `No ${mediaType} title has id ${ref.id}`,
      );
    }
    return row;
  }
}

function entryFieldsOf(row: EntryColumns): EntryFields {
  return {
    status: row.status,
    isVisible: rawBoolean(row.is_visible),
    publicRating: row.public_rating,
    publicFraction: row.public_fraction,
    personalRating: row.personal_rating,
    episodesWatched: row.episodes_watched,
    chaptersRead: row.chapters_read,
    volumesRead: row.volumes_read,
    startDate: row.start_date,
    endDate: row.end_date,
    isRepeating: rawBoolean(row.is_repeating),
    timesRepeated: row.times_repeated,
    repeatDesire: row.repeat_desire,
    notes: row.notes,
    priority: row.priority,
  };
}

function pickExternalIdFlag(ref: TitleRef, body: PutRatingDto): boolean {
  const fromQuery = ref.useExternalIdQuery;
  const fromBody = body.use_external_id;
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    throw ProblemException.validation([
      { field: 'use_external_id', message: 'contradicts the use_external_id query parameter' },
    ]);
  }
  return fromBody ?? fromQuery ?? false;
}

/**
 * The bound of a count when the title's own count is unknown (decisions §6); when it is known,
 * the title's count is the bound, however large.
 */
const UNKNOWN_COUNT_CAPS: Record<string, number> = {
  episodes_watched: 100000,
  chapters_read: 100000,
  volumes_read: 10000,
};

/** The rules that need the whole entry and the title (decisions §6). */
function checkEntryRules(
  mediaType: MediaType,
  entry: EntryFields,
  title: Pick<Title, 'episodes' | 'chapters' | 'volumes'>,
): void {
  const errors: FieldError[] = [];
  if (entry.publicRating * 10 + entry.publicFraction > 100) {
    errors.push({
      field: 'public_fraction',
      message:
        'makes the score above 10.0 (public_rating + public_fraction/10 must be at most 10.0)',
    });
  }
  if (entry.startDate !== null && entry.endDate !== null && entry.endDate < entry.startDate) {
    errors.push({
      field: 'end_date',
      message: `must not be before start_date (${entry.startDate})`,
    });
  }
  const within = (field: string, value: number, known: number | null, what: string) => {
    const max = known ?? UNKNOWN_COUNT_CAPS[field];
    if (value > max) {
      errors.push({
        field,
        message:
          known === null
            ? `must be at most ${max} (the title's ${what} is unknown)`
            : `must be at most ${known}, the title's ${what}`,
      });
    }
  };
  if (mediaType === 'anime') {
    within('episodes_watched', entry.episodesWatched, title.episodes, 'episode count');
  } else {
    within('chapters_read', entry.chaptersRead, title.chapters, 'chapter count');
    within('volumes_read', entry.volumesRead, title.volumes, 'volume count');
  }
  if (errors.length > 0) throw ProblemException.validation(errors);
}

/**
 * An entry as read (decisions §7) from the values of an ALL_ENTRIES_SQL row, in its column order.
 * Built as one literal per media type: GET all makes 10,000 of them.
 */
function toView<M extends MediaType>(mediaType: M, values: unknown[]): RatingViewOf<M> {
  const [
    id,
    externalId,
    title,
    status,
    isVisible,
    publicRating,
    publicFraction,
    personalRating,
    episodesWatched,
    chaptersRead,
    volumesRead,
    startDate,
    endDate,
    isRepeating,
    timesRepeated,
    repeatDesire,
    notes,
    priority,
    createdAt,
    updatedAt,
  ] = values as EntryValues;
  const view =
    mediaType === 'anime'
      ? {
          id,
          external_id: externalId,
          title,
          status,
          is_visible: rawBoolean(isVisible),
          public_rating: publicRating,
          public_fraction: publicFraction,
          personal_rating: personalRating,
          episodes_watched: episodesWatched,
          start_date: startDate,
          end_date: endDate,
          is_rewatching: rawBoolean(isRepeating),
          times_rewatched: timesRepeated,
          rewatch_desire: repeatDesire,
          notes,
          priority,
          created_at: rawIsoSeconds(createdAt),
          updated_at: rawIsoSeconds(updatedAt),
        }
      : {
          id,
          external_id: externalId,
          title,
          status,
          is_visible: rawBoolean(isVisible),
          public_rating: publicRating,
          public_fraction: publicFraction,
          personal_rating: personalRating,
          chapters_read: chaptersRead,
          volumes_read: volumesRead,
          start_date: startDate,
          end_date: endDate,
          is_rereading: rawBoolean(isRepeating),
          times_reread: timesRepeated,
          reread_desire: repeatDesire,
          notes,
          priority,
          created_at: rawIsoSeconds(createdAt),
          updated_at: rawIsoSeconds(updatedAt),
        };
  return view as RatingViewOf<M>;
}
