import { applyDecorators } from '@nestjs/common';
import { Column, JoinColumn, ManyToOne, type ObjectType } from 'typeorm';

/** A point in time; both databases keep it in UTC (see typeorm-options). */
export function DateTimeColumn(name: string, options: { nullable?: true } = {}): PropertyDecorator {
  return Column({ name, type: 'datetime', ...options });
}

/** Unix milliseconds: bigint comes back as a string from mysql2. */
const MILLISECONDS = {
  to: (value: number) => value,
  from: (value: string | number) => Number(value),
};

/** A point in time as Unix milliseconds, for rows compared with counters' clocks. */
export function MillisecondsColumn(name: string): PropertyDecorator {
  return Column({ name, type: 'bigint', transformer: MILLISECONDS });
}

/** The row this one belongs to, through `column`; deleting it deletes this row. */
export function BelongsTo<T>(parent: () => ObjectType<T>, column: string): PropertyDecorator {
  return applyDecorators(ManyToOne(parent, { onDelete: 'CASCADE' }), JoinColumn({ name: column }));
}
