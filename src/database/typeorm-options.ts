import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AdvancedConsoleLogger, type DataSourceOptions, type EntitySchema } from 'typeorm';
import { DEFAULT_DATABASE_TIMEOUT_MS, type DatabaseTarget } from '../config/app-config';
import { galeraNodesFor } from './galera-nodes';
import { InitialSchema1763830000000 } from './migrations/1763830000000-initial-schema';
import { UserPasswords1795370000000 } from './migrations/1795370000000-user-passwords';
import { OAuth1795370000001 } from './migrations/1795370000001-oauth';
import { UserListVersion1795370000002 } from './migrations/1795370000002-user-list-version';
import { RatingRevisions1800000000001 } from './migrations/1800000000001-rating-revisions';
import { Sync1800000700000 } from './migrations/1800000700000-sync';
import { CatalogVersions1800000700001 } from './migrations/1800000700001-catalog-versions';
import { ExternalIdentities1800000100000 } from './migrations/1800000100000-external-identities';
import { PurgeLeases1800000300000 } from './migrations/1800000300000-purge-leases';
import { Webhooks1800000600000 } from './migrations/1800000600000-webhooks';
import { PublicVersions1800000800000 } from './migrations/1800000800000-public-versions';
import { AbuseRecords1800000900000 } from './migrations/1800000900000-abuse-records';
import { WebhookMessageIndexes1800001000000 } from './migrations/1800001000000-webhook-message-indexes';
import { WebhookMessageLeanIndexes1800001100000 } from './migrations/1800001100000-webhook-message-lean-indexes';
import { WebhookPlainRowids1800001200000 } from './migrations/1800001200000-webhook-plain-rowids';
import { SqliteTablesAsEntities1800001300000 } from './migrations/1800001300000-sqlite-tables-as-entities';
import { History1800001400000 } from './migrations/1800001400000-history';
import { Scrobbling1800001500000 } from './migrations/1800001500000-scrobbling';
import { Statistics1800001600000 } from './migrations/1800001600000-statistics';

export const MIGRATIONS = [
  InitialSchema1763830000000,
  UserPasswords1795370000000,
  OAuth1795370000001,
  UserListVersion1795370000002,
  RatingRevisions1800000000001,
  ExternalIdentities1800000100000,
  PurgeLeases1800000300000,
  Webhooks1800000600000,
  Sync1800000700000,
  CatalogVersions1800000700001,
  PublicVersions1800000800000,
  AbuseRecords1800000900000,
  WebhookMessageIndexes1800001000000,
  WebhookMessageLeanIndexes1800001100000,
  WebhookPlainRowids1800001200000,
  SqliteTablesAsEntities1800001300000,
  History1800001400000,
  Scrobbling1800001500000,
  Statistics1800001600000,
];

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type EntityList = (Function | EntitySchema)[];

/**
 * TypeORM logs every query slower than maxQueryExecutionTime whatever `logging` says; with the
 * query timeout set to the same value, an outage would log each waiting query's SQL.
 */
class QuietLogger extends AdvancedConsoleLogger {
  override logQuerySlow(): void {}
}

/** The SQLite file's folder, made before the first connection opens (creates) the file. */
export function makeSqliteFolder(options: DataSourceOptions): void {
  if (options.type === 'better-sqlite3' && options.database !== ':memory:') {
    mkdirSync(dirname(options.database), { recursive: true });
  }
}

/**
 * The one options builder behind the app, the CLI, the e2e tests and `ormconfig.ts`. The entities
 * come from the composition root (`src/entities.ts`): this folder knows no feature's tables.
 * Migrations are not run by TypeORM on connect: DatabaseModule runs them under a lock
 * (contract §16).
 */
export function buildTypeOrmOptions(
  database: DatabaseTarget,
  entities: EntityList,
  timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS,
): DataSourceOptions {
  const common = {
    entities,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    logging: false,
    logger: new QuietLogger(false),
  } as const;

  if (database.type === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      database: database.path,
      enableWAL: true,
      // Waits for a lock held by another process (the CLI next to the server) instead of failing,
      // as long as DATABASE_TIMEOUT_MS.
      timeout: timeoutMs,
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('foreign_keys = ON');
        db.pragma('synchronous = NORMAL');
      },
    };
  }

  return {
    ...common,
    type: 'mysql',
    url: database.url,
    charset: 'utf8mb4',
    timezone: 'Z',
    // DATE as 'YYYY-MM-DD' strings: no time-zone shift of calendar dates.
    dateStrings: ['DATE'],
    // Each query and each connect gives up after DATABASE_TIMEOUT_MS; the wait for a pooled
    // connection is bounded by DatabaseAvailability (database-timeouts.ts).
    enableQueryTimeout: true,
    maxQueryExecutionTime: timeoutMs,
    connectTimeout: timeoutMs,
    // Several hosts (contract §23): each connection opens to the current ready node.
    extra: database.galera
      ? { connectionLimit: 10, stream: galeraNodesFor(database.galera).openSocket }
      : { connectionLimit: 10 },
  };
}
