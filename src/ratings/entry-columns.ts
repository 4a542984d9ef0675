import type { ColumnOptions } from 'typeorm';
import { NULLABLE } from '../database/columns';
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
  /** Its SQL type; a boolean is stored as 0/1 and read back as true/false. */
  readonly type: 'varchar' | 'text' | 'boolean' | 'smallint' | 'int' | 'date';
  readonly length?: number;
  /** `shared`: every media type has it under the column's name. `own`: the media types that name it in their descriptor (`ownFields`) have it, under that name. */
  readonly kind: 'shared' | 'own';
  /**
   * Its value when a PUT creates the entry without it (contract §6); `status` has none. A column
   * whose default is null is nullable.
   */
  readonly default?: EntryFields[P];
}

/** The TypeORM column of an entry's field (see RatingEntry). */
export function entryColumnOptions({
  column,
  type,
  length,
  default: value,
}: EntryColumn): ColumnOptions {
  return {
    name: column,
    type,
    ...(length ? { length } : {}),
    ...(value === null ? NULLABLE : {}),
  };
}

/** An entry of the list below; its column is named after its property, in snake case. */
const column = <P extends keyof EntryFields>(
  entry: Omit<EntryColumn<P>, 'column'>,
): EntryColumn => ({
  column: entry.property.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
  ...entry,
});

/**
 * The one list of an entry's field columns. Its order is the column order of every statement the
 * ratings repository writes or reads, and the field order of the views (contract §7).
 */
export const ENTRY_COLUMNS: readonly EntryColumn[] = [
  column({ property: 'status', type: 'varchar', length: 16, kind: 'shared' }),
  column({ property: 'isVisible', type: 'boolean', kind: 'shared', default: true }),
  column({ property: 'publicRating', type: 'smallint', kind: 'shared', default: 0 }),
  column({ property: 'publicFraction', type: 'smallint', kind: 'shared', default: 0 }),
  column({ property: 'personalRating', type: 'smallint', kind: 'shared', default: 0 }),
  column({ property: 'episodesWatched', type: 'int', kind: 'own', default: 0 }),
  column({ property: 'chaptersRead', type: 'int', kind: 'own', default: 0 }),
  column({ property: 'volumesRead', type: 'int', kind: 'own', default: 0 }),
  column({ property: 'startDate', type: 'date', kind: 'shared', default: null }),
  column({ property: 'endDate', type: 'date', kind: 'shared', default: null }),
  column({ property: 'isRepeating', type: 'boolean', kind: 'own', default: false }),
  column({ property: 'timesRepeated', type: 'int', kind: 'own', default: 0 }),
  column({ property: 'repeatDesire', type: 'smallint', kind: 'own', default: 0 }),
  column({ property: 'notes', type: 'text', kind: 'shared', default: '' }),
  column({ property: 'priority', type: 'smallint', kind: 'shared', default: 0 }),
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
