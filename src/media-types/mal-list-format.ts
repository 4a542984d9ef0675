import type { RatingStatus } from './rating-status';

export type ExportedStatus = Exclude<RatingStatus, 'not_interested'>;

/** A field of an entry and the element of a MyAnimeList export that carries it. */
export interface MalField {
  readonly element: string;
  /** The entry's field, as the API names it. */
  readonly field: string;
}

/**
 * The MyAnimeList XML export format of one list type, as contract §13 maps it (a media type's
 * descriptor holds it): element names and the value tables, in both directions.
 */
export interface MalListFormat {
  /** `<user_export_type>`: which list the file holds. */
  readonly exportType: number;
  readonly entryElement: string;
  readonly idElement: string;
  readonly titleElement: string;
  readonly fileName: string;
  /** Every element of an entry, in the order an export writes them. */
  readonly elements: readonly string[];
  /** The `<myinfo>` elements of the number of entries, in all and per status. */
  readonly totals: Readonly<Record<'all' | ExportedStatus, string>>;
  /** The names of the statuses whose name differs per list type. */
  readonly statusNames: Readonly<Record<'ongoing' | 'bookmark', string>>;
  /** The title's counts an export writes (0 when unknown): element -> title count. */
  readonly titleCounts: Readonly<Record<string, 'episodes' | 'chapters' | 'volumes'>>;
  /** The entry's counts, in the order an import checks them. */
  readonly progress: readonly MalField[];
  readonly times: MalField;
  /** A flag, written as `written[0]` (true) or `written[1]` (false); read as 1/0/YES/NO. */
  readonly repeating: MalField & { readonly written: readonly [string | number, string | number] };
  readonly desire: MalField;
  /** Elements an export writes with a fixed value: what this service does not keep. */
  readonly fixed: Readonly<Record<string, string | number>>;
  /** Elements besides the title, comments and tags whose text an export writes as CDATA. */
  readonly cdata: readonly string[];
}
