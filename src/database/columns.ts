import { Column, Index, JoinColumn, ManyToOne, type ObjectType } from 'typeorm';

/** A point in time; both databases keep it in UTC (see typeorm-options). */
export function DateTimeColumn(name: string, options: { nullable?: true } = {}): PropertyDecorator {
  return Column({ name, type: 'datetime', ...options });
}

/** Text of at most `length` characters. */
export function VarcharColumn(
  length: number,
  options: { name?: string; nullable?: true; select?: false } = {},
): PropertyDecorator {
  return Column({ ...options, type: 'varchar', length });
}

/** When the row was inserted: the inserting code sets it, the column has no default. */
export function CreatedAtColumn(): PropertyDecorator {
  return DateTimeColumn('created_at');
}

/** Unix milliseconds: bigint comes back as a string from mysql2. */
const MILLISECONDS = {
  to: (value: number) => value,
  from: (value: string | number) => Number(value),
};

/** When the row (a credential, a grant) was revoked; null while it holds. */
export function RevokedAtColumn(): PropertyDecorator {
  return DateTimeColumn('revoked_at', { nullable: true });
}

/**
 * A point in time as Unix milliseconds, for rows compared with counters' clocks; with `index`, the
 * column is indexed under that name (rows looked up or pruned by their time).
 */
export function MillisecondsColumn(name: string, index?: string): PropertyDecorator {
  return (target, property) => {
    Column({ name, type: 'bigint', transformer: MILLISECONDS })(target, property);
    if (index !== undefined) Index(index)(target, property);
  };
}

/**
 * The row this one belongs to: its id, in the int `column`, is the decorated property, and the row
 * itself is the relation `relation` (declared next to it, loaded only when a query asks for it).
 * Deleting that row deletes this one. The column is indexed (`index`): the rows of a parent are
 * looked up, and deleted with it. One decorator, so that the column is named once.
 */
export function BelongsTo<T>(
  parent: () => ObjectType<T>,
  column: string,
  relation: string,
  index: string,
): PropertyDecorator {
  return (target, idProperty) => {
    Column({ name: column, type: 'int' })(target, idProperty);
    Index(index)(target, idProperty);
    ManyToOne(parent, { onDelete: 'CASCADE' })(target, relation);
    JoinColumn({ name: column })(target, relation);
  };
}
