import type { RatingEntry } from './rating-entry.entity';

/** An entry's written fields: what a PUT sets, besides the keys, timestamps and revision. */
export type EntryFields = Omit<
  RatingEntry,
  'id' | 'userId' | 'mediaType' | 'titleId' | 'createdAt' | 'updatedAt' | 'revision'
>;

/** A column of `rating_entries` that an entry's fields are stored in. */
export interface EntryColumn<P extends keyof EntryFields = keyof EntryFields> {
  /** The SQL column; also the API name of a shared field. */
  readonly column: string;
  readonly property: P;
  /** Stored as 0/1 and read back as true/false. */
  readonly boolean?: true;
  /** `shared`: every media type has it under the column's name. `own`: the media types that name it in their descriptor (`ownFields`) have it, under that name. */
  readonly kind: 'shared' | 'own';
  /** Its value when a PUT creates the entry without it (contract §6); `status` has none. */
  readonly default?: EntryFields[P];
}

const column = <P extends keyof EntryFields>(entry: EntryColumn<P>): EntryColumn => entry;

/**
 * The one list of an entry's field columns. Its order is the column order of every statement the
 * ratings repository writes or reads, and the field order of the views (contract §7).
 */
export const ENTRY_COLUMNS: readonly EntryColumn[] = [
  column({ column: 'status', property: 'status', kind: 'shared' }),
  column({
    column: 'is_visible',
    property: 'isVisible',
    kind: 'shared',
    boolean: true,
    default: true,
  }),
  column({ column: 'public_rating', property: 'publicRating', kind: 'shared', default: 0 }),
  column({ column: 'public_fraction', property: 'publicFraction', kind: 'shared', default: 0 }),
  column({ column: 'personal_rating', property: 'personalRating', kind: 'shared', default: 0 }),
  column({ column: 'episodes_watched', property: 'episodesWatched', kind: 'own', default: 0 }),
  column({ column: 'chapters_read', property: 'chaptersRead', kind: 'own', default: 0 }),
  column({ column: 'volumes_read', property: 'volumesRead', kind: 'own', default: 0 }),
  column({ column: 'start_date', property: 'startDate', kind: 'shared', default: null }),
  column({ column: 'end_date', property: 'endDate', kind: 'shared', default: null }),
  column({
    column: 'is_repeating',
    property: 'isRepeating',
    kind: 'own',
    boolean: true,
    default: false,
  }),
  column({ column: 'times_repeated', property: 'timesRepeated', kind: 'own', default: 0 }),
  column({ column: 'repeat_desire', property: 'repeatDesire', kind: 'own', default: 0 }),
  column({ column: 'notes', property: 'notes', kind: 'shared', default: '' }),
  column({ column: 'priority', property: 'priority', kind: 'shared', default: 0 }),
];

/** Defaults on create (contract §6), from ENTRY_COLUMNS; `status` is always sent. */
export function entryDefaults(
  columns: readonly EntryColumn[] = ENTRY_COLUMNS,
): Omit<EntryFields, 'status'> {
  const defaults: Record<string, unknown> = {};
  for (const { property, default: value } of columns) {
    if (value !== undefined) defaults[property] = value;
  }
  return defaults as Omit<EntryFields, 'status'>;
}
