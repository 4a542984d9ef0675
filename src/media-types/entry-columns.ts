import type { ColumnOptions } from 'typeorm';
import { NULLABLE } from '../database/columns';
import { RATING_STATUSES } from './rating-status';

export const MAX_NOTES_LENGTH = 10000;

/**
 * How a PUT body's field is validated and how the API documents it (contract §6). `count`: a
 * non-negative integer whose upper bound is the title's count (the descriptor's count rules).
 */
export type FieldRule =
  | { readonly kind: 'oneOf'; readonly values: readonly string[] }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'int'; readonly min: number; readonly max: number }
  | { readonly kind: 'count' }
  | { readonly kind: 'date' }
  | { readonly kind: 'text'; readonly maxLength: number };

type SqlType = 'varchar' | 'text' | 'boolean' | 'smallint' | 'int' | 'date';

/** A column of `rating_entries` that an entry's fields are stored in. */
export interface EntryColumn {
  /** The SQL column; also the API name of a shared field. */
  readonly column: string;
  /** The entity's property. */
  readonly property: string;
  /** Its SQL type; a boolean is stored as 0/1 and read back as true/false. */
  readonly type: SqlType;
  readonly length?: number;
  /** `shared`: every media type has it under the column's name. `own`: the media types that name it in their descriptor (`ownFields`) have it, under that name. */
  readonly kind: 'shared' | 'own';
  /**
   * Its value when a PUT creates the entry without it (contract §6); `status` has none. A column
   * whose default is null is nullable.
   */
  readonly default?: string | number | boolean | null;
  /** Its rule in a PUT body; see ruleOf() for the rule a column without one gets. */
  readonly rule?: FieldRule;
  /** What the API documentation says of a shared field (own fields: the descriptor's text). */
  readonly description?: string;
  /** The value the views' OpenAPI examples show, when not the rule's default example. */
  readonly example?: string | number | boolean | null;
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

const INT_MAX = { smallint: 32767, int: 2147483647 } as const;

/**
 * A column's rule: the one it names, else the one its type implies (a boolean, a calendar date or
 * null, an integer from 0 to the SQL type's largest). Text needs its own (its length).
 */
export function ruleOf({ rule, type, property }: EntryColumn): FieldRule {
  if (rule) return rule;
  switch (type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'date':
      return { kind: 'date' };
    case 'smallint':
    case 'int':
      return { kind: 'int', min: 0, max: INT_MAX[type] };
    case 'varchar':
    case 'text':
      throw new Error(`entry column ${property}: a text column needs its rule (its length)`);
  }
}

/** `episodesWatched` -> `episodes_watched`, in the type system too. */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/** An entry of the list below; its column is named after its property, in snake case. */
const column = <const C extends Omit<EntryColumn, 'column'>>(
  entry: C,
): C & { readonly column: SnakeCase<C['property']> } => ({
  column: entry.property.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) as SnakeCase<
    C['property']
  >,
  ...entry,
});

/**
 * The one list of an entry's field columns. Its order is the column order of every statement the
 * ratings repository writes or reads, and the field order of the views (contract §7). The entity
 * (RatingEntry), the PUT bodies, the views and their OpenAPI schemas are made from it.
 */
export const ENTRY_COLUMNS = [
  column({
    property: 'status',
    type: 'varchar',
    length: 16,
    kind: 'shared',
    rule: { kind: 'oneOf', values: RATING_STATUSES },
    description: 'Required on create and on update.',
  }),
  column({
    property: 'isVisible',
    type: 'boolean',
    kind: 'shared',
    default: true,
    description: 'true: visible to others; false: private. Default true.',
  }),
  column({
    property: 'publicRating',
    type: 'smallint',
    kind: 'shared',
    default: 0,
    rule: { kind: 'int', min: 0, max: 10 },
    description: 'Public score. public_rating + public_fraction/10 is at most 10.0.',
  }),
  column({
    property: 'publicFraction',
    type: 'smallint',
    kind: 'shared',
    default: 0,
    rule: { kind: 'int', min: 0, max: 9 },
    description: 'Decimal part of the public score.',
  }),
  column({
    property: 'personalRating',
    type: 'smallint',
    kind: 'shared',
    default: 0,
    rule: { kind: 'int', min: 0, max: 100 },
    description: "Personal score; does not affect the title's overall rating.",
  }),
  column({
    property: 'episodesWatched',
    type: 'int',
    kind: 'own',
    default: 0,
    rule: { kind: 'count' },
  }),
  column({
    property: 'chaptersRead',
    type: 'int',
    kind: 'own',
    default: 0,
    rule: { kind: 'count' },
  }),
  column({
    property: 'volumesRead',
    type: 'int',
    kind: 'own',
    default: 0,
    rule: { kind: 'count' },
  }),
  column({
    property: 'startDate',
    type: 'date',
    kind: 'shared',
    default: null,
    description: 'Date viewing started; null clears it.',
  }),
  column({
    property: 'endDate',
    type: 'date',
    kind: 'shared',
    default: null,
    description: 'Date viewing ended, not before start_date; null clears it.',
    example: null,
  }),
  column({ property: 'isRepeating', type: 'boolean', kind: 'own', default: false }),
  column({
    property: 'timesRepeated',
    type: 'int',
    kind: 'own',
    default: 0,
    rule: { kind: 'int', min: 0, max: 1000 },
  }),
  column({
    property: 'repeatDesire',
    type: 'smallint',
    kind: 'own',
    default: 0,
    rule: { kind: 'int', min: 0, max: 5 },
  }),
  column({
    property: 'notes',
    type: 'text',
    kind: 'shared',
    default: '',
    rule: { kind: 'text', maxLength: MAX_NOTES_LENGTH },
    description: 'User notes.',
  }),
  column({
    property: 'priority',
    type: 'smallint',
    kind: 'shared',
    default: 0,
    rule: { kind: 'int', min: 0, max: 3 },
    description: '0 = no priority … 3 = highest.',
  }),
] as const satisfies readonly EntryColumn[];

type Columns = (typeof ENTRY_COLUMNS)[number];

/** A column's value in TypeScript: its rule's values, or what its SQL type holds. */
type BaseValue<C extends EntryColumn> = C extends { rule: { values: readonly (infer V)[] } }
  ? V
  : C['type'] extends 'boolean'
    ? boolean
    : C['type'] extends 'smallint' | 'int'
      ? number
      : string;

/** ...and null too when its default is null. */
type ValueOf<C extends EntryColumn> = C extends { default: null }
  ? BaseValue<C> | null
  : BaseValue<C>;

/** An entry's written fields: what a PUT sets, besides the keys, timestamps and revision. */
export type EntryFields = { -readonly [C in Columns as C['property']]: ValueOf<C> };

/** The value of an entry's field by its column's name: what the API shows under that name. */
export type EntryValues = { -readonly [C in Columns as C['column']]: ValueOf<C> };

/** The columns every media type has, under their own names. */
export type SharedColumnName = Extract<Columns, { kind: 'shared' }>['column'];

/** The columns the descriptors may name in `ownFields`. */
export type OwnColumnName = Extract<Columns, { kind: 'own' }>['column'];

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
