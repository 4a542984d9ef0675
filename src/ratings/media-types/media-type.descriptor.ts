import type { Type } from '@nestjs/common';
import type { MediaType } from '../../common/media-type';
import type { MalListFormat } from '../../mal-lists/mal-list-format';
import type { PutRatingDto } from '../dto/put-rating.dto';
import type { RatingView } from '../dto/rating-view.dto';
import type { ListTotals } from './statistics';

/** A count of the catalog's titles (a column of `titles`). */
export type TitleCount = 'episodes' | 'episodeMinutes' | 'chapters' | 'volumes';

/**
 * A count of an entry bounded by the title's count when the catalog knows it, else by a fixed
 * cap (contract §6).
 */
export interface CountRule {
  /** The entry's field, as the API names it. */
  readonly field: string;
  readonly titleCount: 'episodes' | 'chapters' | 'volumes';
  /** How an error message names the title's count: "episode count". */
  readonly what: string;
  readonly unknownCap: number;
}

/**
 * Everything that differs between media types, as data: the routes, DTOs, rules, views, catalog
 * file, profile statistics and MyAnimeList mapping are driven by it. A new media type is a new
 * descriptor (registered in MEDIA_TYPE_DESCRIPTORS), its DTO and view classes, and a migration
 * for any column it adds. The classes are written by hand for their rules and OpenAPI text;
 * descriptor-classes.spec.ts fails when their fields differ from the descriptor's.
 */
export interface MediaTypeDescriptor<
  M extends MediaType = MediaType,
  V extends RatingView = RatingView,
  S = unknown,
> {
  readonly name: M;
  /** The OAuth scope of the type's routes. */
  readonly scope: `ratings.${M}`;
  /**
   * The type's own fields: API name -> the `own` column of ENTRY_COLUMNS it is stored in. The
   * shared columns are every type's fields under their own names.
   */
  readonly ownFields: Readonly<Record<string, string>>;
  readonly counts: readonly CountRule[];
  /** The counts the catalog knows of the type's titles (the catalog file's fields for them). */
  readonly catalogCounts: readonly TitleCount[];
  /** The PUT body, with class-validator rules and OpenAPI schema (dto/). */
  readonly putDto: Type<PutRatingDto>;
  /** The OpenAPI example of a PUT body. */
  readonly putExample: Readonly<Record<string, unknown>>;
  /** An entry as read (dto/); its fields are those the descriptor gives it. */
  readonly view: Type<V>;
  /** Another user's view of a visible entry (dto/). */
  readonly publicView: Type<unknown>;
  /** The profile's statistics of the type (contract §8): their schema and formula. */
  readonly statistics: {
    readonly view: Type<S>;
    readonly of: (totals: ListTotals | undefined) => S;
  };
  /**
   * What history (contract §20) follows of the type's entries, by API name: the progress fields,
   * in the order a viewing's progress prefers them (the first that is not 0), and the flag that
   * starts a rewatch.
   */
  readonly history: {
    readonly progress: readonly string[];
    readonly repeating: string;
  };
  /** The MyAnimeList XML export format of the type's lists; null when MyAnimeList has none. */
  readonly mal: MalListFormat | null;
}
