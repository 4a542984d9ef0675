import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Title } from '../catalog/title.entity';
import type { MediaType } from '../media-types/media-type';
import { sqlDateTime } from '../database/raw-values';
import { selectArrays, selectFirst } from '../database/select-arrays';
import { isSqlite } from '../database/transactions';
import type { RatingView } from '../media-types';
import { ENTRY_COLUMNS, type EntryFields } from '../media-types/entry-columns';
import {
  columnValuesOf,
  compileRowToView,
  entryFieldsOfRow,
  entryFieldsOfType,
  type RowValues,
} from '../media-types/entry-mapping';
import { entryStatements } from './entry-statements';
import {
  byMediaType,
  type EntryView,
  type EntryViewOf,
  type PublicRatingViewOf,
  type RatingViewOf,
} from '../media-types';
import type { ListTotals } from '../media-types/list-totals';
import { RatingEntry } from './rating-entry.entity';
import type { RatingStatus } from '../media-types/rating-status';
import type { ListOptions, ListPage } from './list-options';
import {
  PUBLIC_ENTRY_CONDITION,
  PUBLIC_VIEW_HIDDEN_FIELDS,
} from '../media-types/public-view.policy';

export type { RatingViewOf } from '../media-types';

/** How a route names a title: by its id, or by its external_id. */
export interface TitleKey {
  id: number;
  byExternalId: boolean;
}

/** One entry with its title's id, external id and name, read by name (column -> value). */
interface EntryRow {
  id: number;
  external_id: number | null;
  title: string;
  status: RatingStatus;
  created_at: Date | string;
  updated_at: Date | string;
  [column: string]: unknown;
}

/** A title (a read of the catalog) with the user's entry for it, if any. */
export type TitleWithEntryRow = EntryRow & {
  entry_id: number | null;
  episodes: number | null;
  chapters: number | null;
  volumes: number | null;
};

const SQL = entryStatements();

/**
 * Per media type, the compiled row-to-view functions of the owner's and the public view: the
 * descriptor's fields make the view classes' shape (the compiler cannot follow a compiled literal).
 */
const VIEWS = byMediaType((descriptor) => {
  const fields = entryFieldsOfType(descriptor);
  return {
    own: compileRowToView<RatingView>(fields),
    public: compileRowToView<RatingView>(fields, ENTRY_COLUMNS, PUBLIC_VIEW_HIDDEN_FIELDS),
  };
}) as unknown as {
  [M in MediaType]: {
    own: (values: RowValues) => RatingViewOf<M>;
    public: (values: RowValues) => PublicRatingViewOf<M>;
  };
};

const DIALECT_SQL = {
  sqlite: {
    upsertEntry: SQL.upsertEntry.sqlite,
  },
  mysql: {
    upsertEntry: SQL.upsertEntry.mysql,
  },
};
/** The entries each view lists, before GET all's options. */
const LISTED_SQL: Record<EntryView, string> = {
  own: SQL.allEntries,
  public: SQL.publicEntries,
};

/** SQL.allEntries (or publicEntries) narrowed by GET all's options: a handful of statements. */
function listSql(options: ListOptions, base = SQL.allEntries): string {
  if (!options.statuses && options.limit === null) return base;
  const conditions = [
    options.statuses ? `AND e.status IN (${options.statuses.map(() => '?').join(', ')})` : '',
    options.after === null ? '' : 'AND e.title_id > ?',
  ].join(' ');
  return base.replace(
    'ORDER BY e.title_id',
    `${conditions} ORDER BY e.title_id${options.limit === null ? '' : ' LIMIT ?'}`,
  );
}

/** The catalog's counts of a title, as an export writes them. */
export interface TitleCounts {
  episodes: number | null;
  chapters: number | null;
  volumes: number | null;
}

const countOf = (status: string) => `SUM(CASE WHEN e.status = '${status}' THEN 1 ELSE 0 END)`;
const SCORE = '(e.public_rating * 10 + e.public_fraction)';

/** Ids per look-up statement: well within both databases' limits on parameters. */
const LOOKUP_BATCH = 500;

const DELETE_ENTRY_SQL = 'DELETE FROM rating_entries WHERE id = ?';
const ENTRY_TITLE_IDS_SQL =
  'SELECT title_id FROM rating_entries WHERE user_id = ? AND media_type = ? ORDER BY title_id';

/**
 * The SQL of the ratings module's entries (the revision counters and versions are
 * ListVersionsRepository's), with its one read of the catalog (`titles` joined to entries: in
 * entry-statements and the profile totals), kept in the statements of the hot paths rather than
 * asked of the catalog's service in a second query. Statements are constant strings; writes take
 * the manager of the caller's transaction.
 */
@Injectable()
export class RatingsRepository {
  private readonly sql: (typeof DIALECT_SQL)['sqlite'];

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.sql = isSqlite(dataSource) ? DIALECT_SQL.sqlite : DIALECT_SQL.mysql;
  }

  /** Every entry of the media type with its title, by title id, as views. */
  async allEntries<M extends MediaType>(userId: number, mediaType: M): Promise<RatingViewOf<M>[]> {
    const rows = await selectArrays(this.dataSource, SQL.allEntries, [userId, mediaType]);
    return rows.map(VIEWS[mediaType].own);
  }

  /**
   * The entries of GET all narrowed by its options (contract §11), in `view`: `public` reads the
   * visible entries only (public-view.policy).
   */
  async listedEntries<M extends MediaType, V extends EntryView>(
    view: V,
    userId: number,
    mediaType: M,
    options: ListOptions,
  ): Promise<ListPage<EntryViewOf<M, V>>> {
    const sql = listSql(options, LISTED_SQL[view]);
    const { rows, hasMore } = await this.listedRows(sql, userId, mediaType, options);
    const toView = VIEWS[mediaType][view] as (values: RowValues) => EntryViewOf<M, V>;
    return { entries: rows.map(toView), hasMore };
  }

  private async listedRows(
    sql: string,
    userId: number,
    mediaType: MediaType,
    options: ListOptions,
  ): Promise<{ rows: unknown[][]; hasMore: boolean }> {
    const rows = await selectArrays(this.dataSource, sql, [
      userId,
      mediaType,
      ...(options.statuses ?? []),
      ...(options.after === null ? [] : [options.after]),
      ...(options.limit === null ? [] : [options.limit + 1]),
    ]);
    const hasMore = options.limit !== null && rows.length > options.limit;
    if (hasMore) rows.length = options.limit!;
    return { rows, hasMore };
  }

  /**
   * One aggregate over the user's entries (the unique index on user, media type, title serves it),
   * joined with the catalog's titles (a read of the catalog) for episode lengths; every result is
   * an integer sum.
   */
  listTotals(
    userId: number,
    options: { visibleOnly: boolean; defaultEpisodeMinutes: number },
  ): Promise<ListTotals[]> {
    const query = this.dataSource
      .createQueryBuilder(RatingEntry, 'e')
      .innerJoin(Title, 't', 't.media_type = e.media_type AND t.id = e.title_id')
      .select('e.media_type', 'media_type')
      .addSelect(countOf('ongoing'), 'ongoing')
      .addSelect(countOf('completed'), 'completed')
      .addSelect(countOf('on_hold'), 'on_hold')
      .addSelect(countOf('dropped'), 'dropped')
      .addSelect(countOf('bookmark'), 'bookmark')
      .addSelect(`SUM(CASE WHEN ${SCORE} > 0 THEN ${SCORE} ELSE 0 END)`, 'score_sum')
      .addSelect(`SUM(CASE WHEN ${SCORE} > 0 THEN 1 ELSE 0 END)`, 'scored')
      .addSelect('SUM(e.episodes_watched)', 'episodes')
      .addSelect('SUM(e.chapters_read)', 'chapters')
      .addSelect('SUM(e.volumes_read)', 'volumes')
      .addSelect('SUM(e.times_repeated)', 'repeats')
      .addSelect(
        `SUM(e.episodes_watched * COALESCE(t.episode_minutes, ${Number(options.defaultEpisodeMinutes)}))`,
        'episode_minutes',
      )
      .where('e.user_id = :userId', { userId })
      .groupBy('e.media_type');
    if (options.visibleOnly) query.andWhere(PUBLIC_ENTRY_CONDITION);
    return query.getRawMany<ListTotals>();
  }

  /** The entries whose last write has a revision in (after, upTo], oldest write first. */
  async writtenBetween<M extends MediaType>(
    userId: number,
    mediaType: M,
    after: number,
    upTo: number,
    limit: number,
  ): Promise<{ revision: number; entry: RatingViewOf<M> }[]> {
    const rows = await selectArrays(this.dataSource, SQL.writtenBetween, [
      userId,
      mediaType,
      after,
      upTo,
      limit,
    ]);
    return rows.map((values) => ({
      revision: Number(values[values.length - 1]),
      entry: VIEWS[mediaType].own(values),
    }));
  }

  /** The entries an export writes, by title id, with their titles' counts. */
  async exportedEntries<M extends MediaType>(
    userId: number,
    mediaType: M,
  ): Promise<{ entry: RatingViewOf<M>; counts: TitleCounts }[]> {
    const rows = await selectArrays(this.dataSource, SQL.exportedEntries, [userId, mediaType]);
    return rows.map((values) => {
      const [episodes, chapters, volumes] = values.slice(-3) as (number | null)[];
      return { entry: VIEWS[mediaType].own(values), counts: { episodes, chapters, volumes } };
    });
  }

  /** The titles holding these external ids, each with the user's entry if any. */
  async titlesWithEntriesByExternalId(
    userId: number,
    mediaType: MediaType,
    externalIds: number[],
  ): Promise<TitleWithEntryRow[]> {
    const rows: TitleWithEntryRow[] = [];
    for (let i = 0; i < externalIds.length; i += LOOKUP_BATCH) {
      const batch = externalIds.slice(i, i + LOOKUP_BATCH);
      const sql = SQL.titleWithEntry.byExternalId.replace(
        't.external_id = ?',
        `t.external_id IN (${batch.map(() => '?').join(', ')})`,
      );
      rows.push(
        ...(await this.dataSource.query<TitleWithEntryRow[]>(sql, [userId, mediaType, ...batch])),
      );
    }
    return rows;
  }

  /** The title and the user's entry for it, in one query; undefined when the catalog has none. */
  async titleWithEntry(
    userId: number,
    mediaType: MediaType,
    key: TitleKey,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<TitleWithEntryRow | undefined> {
    const sql = key.byExternalId ? SQL.titleWithEntry.byExternalId : SQL.titleWithEntry.byId;
    if (manager === this.dataSource.manager) {
      return selectFirst<TitleWithEntryRow>(this.dataSource, sql, [userId, mediaType, key.id]);
    }
    const [row] = await manager.query<TitleWithEntryRow[]>(sql, [userId, mediaType, key.id]);
    return row;
  }

  /**
   * Creates or updates the entry in one statement. `updated_at` is written on create and, on
   * update, only when `touch` is true; `created_at` only on create.
   */
  async upsertEntry(
    manager: EntityManager,
    entry: {
      userId: number;
      mediaType: MediaType;
      titleId: number;
      fields: EntryFields;
      now: Date;
      touch: boolean;
      revision: number;
    },
  ): Promise<void> {
    const now = sqlDateTime(entry.now);
    const values = columnValuesOf(entry.fields);
    await manager.query(entry.touch ? this.sql.upsertEntry.touch : this.sql.upsertEntry.keep, [
      entry.userId,
      entry.mediaType,
      entry.titleId,
      ...values,
      now,
      now,
      entry.revision,
    ]);
  }

  async deleteEntry(manager: EntityManager, entryId: number): Promise<void> {
    await manager.query(DELETE_ENTRY_SQL, [entryId]);
  }

  /** The title ids of the user's entries of the media type, read in `manager`'s transaction. */
  async entryTitleIds(
    manager: EntityManager,
    userId: number,
    mediaType: MediaType,
  ): Promise<number[]> {
    const rows = await manager.query<{ title_id: number | string }[]>(ENTRY_TITLE_IDS_SQL, [
      userId,
      mediaType,
    ]);
    return rows.map((row) => Number(row.title_id));
  }
}

/** The stored fields of an entry read by titleWithEntry. */
export function entryFieldsOf(row: TitleWithEntryRow): EntryFields {
  return entryFieldsOfRow(row);
}

/** The view of an entry as written: the title's columns, the fields, the two timestamps. */
export function viewOfWritten<M extends MediaType>(
  mediaType: M,
  title: Pick<EntryRow, 'id' | 'external_id' | 'title'>,
  fields: EntryFields,
  createdAt: Date | string,
  updatedAt: Date | string,
): RatingViewOf<M> {
  return VIEWS[mediaType].own([
    title.id,
    title.external_id,
    title.title,
    ...ENTRY_COLUMNS.map(({ property }) => fields[property]),
    createdAt,
    updatedAt,
  ]);
}

/** The row's view (contract §7) from the values of a titleWithEntry row, in its column order. */
export function viewOfRow<M extends MediaType>(mediaType: M, row: TitleWithEntryRow) {
  return VIEWS[mediaType].own(Object.values(row));
}
