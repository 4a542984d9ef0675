import { Column, Index, JoinColumn, ManyToOne, type ObjectType } from 'typeorm';

/**
 * The options of a column that may hold null, whose default is NULL. Spelled out as the expression
 * NULL because MariaDB reports a nullable column's default that way, and TypeORM, comparing the
 * entities with the database (`migration:generate`), would otherwise see every nullable column as
 * changed; the migrations write `DEFAULT NULL` on SQLite too (1800001300000). A column with a
 * default is read back by TypeORM after an insert through it (`insert`, `save`): a bulk insert
 * that does not use the entities skips that with `.updateEntity(false)` (the catalog import).
 */
export const NULLABLE = { nullable: true, default: () => 'NULL' } as const;

/**
 * A foreign key's actions besides ON DELETE: ON UPDATE RESTRICT, what MariaDB makes of a key
 * declared without one (as the migrations declare them), and what the SQLite tables say since
 * 1800001300000. Keys are never updated.
 */
export const FOREIGN_KEY = { onUpdate: 'RESTRICT' } as const;

/** A point in time; both databases keep it in UTC (see typeorm-options). */
export function DateTimeColumn(name: string, options: { nullable?: true } = {}): PropertyDecorator {
  return Column({ name, type: 'datetime', ...(options.nullable ? NULLABLE : {}) });
}

/** Text of at most `length` characters. */
export function VarcharColumn(
  length: number,
  { nullable, ...options }: { name?: string; nullable?: true; select?: false } = {},
): PropertyDecorator {
  return Column({ ...options, type: 'varchar', length, ...(nullable ? NULLABLE : {}) });
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
 * Deleting that row deletes this one (the foreign key `foreignKey`). The column is indexed
 * (`index`): the rows of a parent are looked up, and deleted with it. One decorator, so that the
 * column is named once.
 */
export function BelongsTo<T>(
  parent: () => ObjectType<T>,
  column: string,
  relation: string,
  { index, foreignKey }: { index: string; foreignKey: string },
): PropertyDecorator {
  return (target, idProperty) => {
    Column({ name: column, type: 'int' })(target, idProperty);
    Index(index)(target, idProperty);
    ManyToOne(parent, { ...FOREIGN_KEY, onDelete: 'CASCADE' })(target, relation);
    JoinColumn({ name: column, foreignKeyConstraintName: foreignKey })(target, relation);
  };
}
