import { Injectable, type Provider, type Type } from '@nestjs/common';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { ObjectLiteral, Repository } from 'typeorm';

/** At most this many rows go in one statement (contract §16). */
export const PURGE_BATCH = 1000;

/**
 * One kind of row a module purges from its own tables: `purgeBatch` removes at most `limit` rows
 * that are due at `now` and says how many went.
 */
export interface PurgeTask {
  /** The `kind` label of purged_rows_total, e.g. `access_tokens`. */
  kind: string;
  purgeBatch(now: Date, limit: number): Promise<number>;
}

/** Modules register their purges here at start-up; PurgeRunner runs them all, in batches. */
@Injectable()
export class PurgeRegistry {
  private readonly tasks: PurgeTask[] = [];

  register(task: PurgeTask): void {
    this.tasks.push(task);
  }

  all(): readonly PurgeTask[] {
    return this.tasks;
  }
}

/**
 * Removes at most `limit` rows of `repository` whose `column` (a property name) is before
 * `before`, oldest first; a select of ids then a delete by id, which both databases run the same
 * way (MySQL has no LIMIT in a DELETE with a subquery on the same table).
 */
export async function purgeRowsBefore<T extends ObjectLiteral, K extends keyof T & string>(
  repository: Repository<T>,
  column: K,
  before: T[K],
  limit: number,
): Promise<number> {
  const id = repository.metadata.primaryColumns[0].propertyName;
  const rows = await repository
    .createQueryBuilder('row')
    .select(`row.${id}`, 'id')
    .where(`row.${column} < :before`, { before })
    .orderBy(`row.${column}`)
    .limit(limit)
    .getRawMany<{ id: unknown }>();
  if (rows.length === 0) return 0;
  await repository.delete(rows.map((row) => row.id) as never);
  return rows.length;
}

/**
 * A provider that registers the purge of `entity`'s rows whose `column` is before `dueBefore(now)`,
 * for a module whose entity expires by one column. The entity must be in the module's
 * `TypeOrmModule.forFeature`; without a PurgeRegistry (the CLI runs no purges) it registers nothing.
 */
export function expiringRowsPurge<T extends ObjectLiteral, K extends keyof T & string>(
  entity: Type<T>,
  kind: string,
  column: K,
  dueBefore: (now: Date) => T[K],
): Provider {
  return {
    provide: `purge:${kind}`,
    inject: [getRepositoryToken(entity), { token: PurgeRegistry, optional: true }],
    useFactory: (repository: Repository<T>, registry?: PurgeRegistry): PurgeTask => {
      const task: PurgeTask = {
        kind,
        purgeBatch: (now, limit) => purgeRowsBefore(repository, column, dueBefore(now), limit),
      };
      registry?.register(task);
      return task;
    },
  };
}
