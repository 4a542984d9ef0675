import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Title } from '../catalog/title.entity';
import { CatalogService } from '../catalog/catalog.service';
import type { MediaType } from '../common/media-type';
import { FieldError, ProblemException } from '../common/problem';
import { nowToTheSecond, toIsoSeconds } from '../common/timestamps';
import { isUniqueViolation } from '../database/errors';
import { rawBoolean, rawUtcDate } from '../database/raw-values';
import type { PutRatingDto } from './dto/put-rating.dto';
import type { AnimeRatingView, MangaRatingView } from './dto/rating-view.dto';
import { RatingEntry, RatingStatus } from './rating-entry.entity';
import { changesFrom, ENTRY_DEFAULTS, EntryFields } from './rating-fields';
import type { TitleRef } from './title-ref';

export type RatingViewOf<M extends MediaType> = M extends 'anime'
  ? AnimeRatingView
  : MangaRatingView;

/** One entry joined with its title, as the read queries return it. */
interface EntryRow {
  id: number;
  external_id: number | null;
  title: string;
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

const ROW_COLUMNS = [
  't.id AS id',
  't.external_id AS external_id',
  't.title AS title',
  ...[
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
  ].map((column) => `e.${column} AS ${column}`),
];

@Injectable()
export class RatingsService {
  constructor(
    @InjectRepository(RatingEntry) private readonly entries: Repository<RatingEntry>,
    private readonly catalog: CatalogService,
  ) {}

  async getOne<M extends MediaType>(
    userId: number,
    mediaType: M,
    ref: TitleRef,
  ): Promise<RatingViewOf<M>[]> {
    const title = await this.resolveTitle(mediaType, ref, ref.useExternalIdQuery);
    const rows = await this.readRows(userId, mediaType)
      .andWhere('e.title_id = :titleId', { titleId: title.id })
      .getRawMany<EntryRow>();
    return rows.map((row) => toView(mediaType, row));
  }

  /** Every entry of the media type, in title id order (decisions §7). */
  async getAll<M extends MediaType>(userId: number, mediaType: M): Promise<RatingViewOf<M>[]> {
    const rows = await this.readRows(userId, mediaType)
      .orderBy('e.title_id', 'ASC')
      .getRawMany<EntryRow>();
    return rows.map((row) => toView(mediaType, row));
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
    const title = await this.resolveTitle(mediaType, ref, pickExternalIdFlag(ref, body));
    const changes = changesFrom(mediaType, body);

    for (let attempt = 1; ; attempt++) {
      const existing = await this.entries.findOneBy({ userId, mediaType, titleId: title.id });
      const now = nowToTheSecond();
      if (existing) {
        checkEntryRules(mediaType, { ...existing, ...changes }, title);
        await this.entries.update(
          { id: existing.id },
          body.touch ? { ...changes, updatedAt: now } : changes,
        );
        return;
      }
      const entry = { ...ENTRY_DEFAULTS, ...changes, status: body.status };
      checkEntryRules(mediaType, entry, title);
      try {
        await this.entries.insert({
          ...entry,
          userId,
          mediaType,
          titleId: title.id,
          createdAt: now,
          updatedAt: now,
        });
        return;
      } catch (error) {
        if (attempt > 1 || !isUniqueViolation(error)) throw error;
      }
    }
  }

  async remove(userId: number, mediaType: MediaType, ref: TitleRef): Promise<void> {
    const title = await this.resolveTitle(mediaType, ref, ref.useExternalIdQuery);
    const result = await this.entries.delete({ userId, mediaType, titleId: title.id });
    if (!result.affected) {
      throw ProblemException.notFound(`You have no rating entry for ${mediaType} ${title.id}`);
    }
  }

  private readRows(userId: number, mediaType: MediaType) {
    return this.entries
      .createQueryBuilder('e')
      .innerJoin(Title, 't', 't.media_type = e.media_type AND t.id = e.title_id')
      .select(ROW_COLUMNS)
      .where('e.user_id = :userId AND e.media_type = :mediaType', { userId, mediaType });
  }

  private async resolveTitle(
    mediaType: MediaType,
    ref: TitleRef,
    byExternalId = false,
  ): Promise<Title> {
    const title = byExternalId
      ? await this.catalog.findByExternalId(mediaType, ref.id)
      : await this.catalog.findById(mediaType, ref.id);
    if (!title) {
      throw ProblemException.notFound(
        byExternalId
          ? `No ${mediaType} title has external_id ${ref.id}`
          : `No ${mediaType} title has id ${ref.id}`,
      );
    }
    return title;
  }
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
function checkEntryRules(mediaType: MediaType, entry: EntryFields, title: Title): void {
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

function toView<M extends MediaType>(mediaType: M, row: EntryRow): RatingViewOf<M> {
  const head = {
    id: Number(row.id),
    external_id: row.external_id === null ? null : Number(row.external_id),
    title: row.title,
    status: row.status,
    is_visible: rawBoolean(row.is_visible),
    public_rating: row.public_rating,
    public_fraction: row.public_fraction,
    personal_rating: row.personal_rating,
  };
  const tail = {
    notes: row.notes,
    priority: row.priority,
    created_at: toIsoSeconds(rawUtcDate(row.created_at)),
    updated_at: toIsoSeconds(rawUtcDate(row.updated_at)),
  };
  const dates = { start_date: row.start_date, end_date: row.end_date };
  const view =
    mediaType === 'anime'
      ? {
          ...head,
          episodes_watched: row.episodes_watched,
          ...dates,
          is_rewatching: rawBoolean(row.is_repeating),
          times_rewatched: row.times_repeated,
          rewatch_desire: row.repeat_desire,
          ...tail,
        }
      : {
          ...head,
          chapters_read: row.chapters_read,
          volumes_read: row.volumes_read,
          ...dates,
          is_rereading: rawBoolean(row.is_repeating),
          times_reread: row.times_repeated,
          reread_desire: row.repeat_desire,
          ...tail,
        };
  return view as RatingViewOf<M>;
}
