import type { OwnColumnName } from './entry-columns';
import type { MalListFormat } from './mal-list-format';
import type { ListTotals } from './list-totals';
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

/** A field of a media type's own: the `own` column it is stored in, and what the API says of it. */
export interface OwnField {
  readonly column: OwnColumnName;
  readonly description: string;
}

/** A number of a media type's profile statistics beyond the shared ones (contract §8). */
export interface StatisticsSum {
  readonly description: string;
  /** The OpenAPI example (the profile example of docs/api.md). */
  readonly example: number;
  readonly of: (totals: ListTotals | undefined) => number;
}

/**
 * Everything that differs between media types, as data: the routes, the PUT body, the views and
 * their OpenAPI schemas, the rules, the catalog file, the profile statistics and the MyAnimeList
 * mapping are made from it. A new media type is a new descriptor registered in
 * MEDIA_TYPE_DESCRIPTORS, and a migration (docs/extending.md).
 */
export interface MediaTypeDescriptor<M extends string = string> {
  readonly name: M;
  /** The OAuth scope of the type's routes. */
  readonly scope: `ratings.${M}`;
  /**
   * The type's own fields, in the order of their columns: API name -> the `own` column of
   * ENTRY_COLUMNS it is stored in. The shared columns are every type's fields under their own
   * names.
   */
  readonly ownFields: Readonly<Record<string, OwnField>>;
  readonly counts: readonly CountRule[];
  /** The counts the catalog knows of the type's titles (the catalog file's fields for them). */
  readonly catalogCounts: readonly TitleCount[];
  /** The values of a title's `format` (contract §22), in the order the documentation lists them. */
  readonly formats: readonly string[];
  /** The OpenAPI example of a PUT body. */
  readonly putExample: Readonly<Record<string, unknown>>;
  /** The profile's statistics of the type (contract §8): the shared ones, then its sums. */
  readonly statistics: {
    /** The verb of the type: "watch" (planned to watch). */
    readonly verb: string;
    /** The key of the ongoing count: "watching". */
    readonly ongoing: string;
    /** OpenAPI examples of the shared numbers, in their order (the profile example of docs/api.md). */
    readonly examples: readonly [
      ongoing: number,
      completed: number,
      onHold: number,
      dropped: number,
      bookmark: number,
      average: number,
    ];
    readonly sums: Readonly<Record<string, StatisticsSum>>;
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
