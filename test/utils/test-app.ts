import type { ModuleMetadata } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { configureApp, createHttpAdapter } from '../../src/app.setup';
import { loadConfig } from '../../src/config/app-config';
import { LOG_DESTINATION } from '../../src/logging/logging.module';
import { PurgeLease } from '../../src/purges/purge-lease.entity';
import type { DestinationStream } from 'pino';

export const USER_AGENT = 'ListSync/2.1.0 (admin@listsync.example)';

/**
 * Generous limits so that specs about other rules never meet them; the rate-limit and denial
 * specs pass their own values.
 */
const TEST_DEFAULTS: Record<string, string> = {
  RATE_LIMIT_USER_LIMIT: '100000',
  RATE_LIMIT_IP_LIMIT: '100000',
  UA_DENY_THRESHOLD: '0',
  LOG_LEVEL: 'error',
};

/**
 * The app exactly as main.ts builds it (same module, adapter and configureApp), on the run's
 * database, with `env` on top of the test defaults.
 */
export async function createTestApp(
  env: Record<string, string> = {},
  /** Modules a test adds next to AppModule, as a team's own module would be (e.g. listeners). */
  extraImports: ModuleMetadata['imports'] = [],
  /** Where the app's JSON log lines go (stdout by default), for a test that reads them. */
  logDestination?: DestinationStream,
): Promise<NestFastifyApplication> {
  const databaseUrl = process.env.E2E_DATABASE_URL;
  if (!databaseUrl)
    throw new Error('E2E_DATABASE_URL is not set: run the e2e suite through jest-e2e.json');
  const config = loadConfig({ DATABASE_URL: databaseUrl, ...TEST_DEFAULTS, ...env });
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(config), ...extraImports],
  })
    .overrideProvider(LOG_DESTINATION)
    .useValue(logDestination ?? null)
    .compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(config), {
    logger: ['fatal', 'error'],
  });
  configureApp(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

/**
 * A spec's app: created before its tests (`createTestApp(env)`), closed after them, its database
 * emptied before each test. `use` receives the app (a spec keeps it in its own `let app`).
 */
export function useTestApp(
  use: (app: NestFastifyApplication) => void,
  env: Record<string, string> = {},
  extraImports: ModuleMetadata['imports'] = [],
): void {
  let app: NestFastifyApplication | undefined;
  beforeAll(async () => {
    app = await createTestApp(env, extraImports);
    use(app);
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    await resetDatabase(app!);
  });
}

/** Empties every table, children first; each spec calls it before each test. */
export async function resetDatabase(app: NestFastifyApplication): Promise<void> {
  const dataSource = app.get(DataSource);
  for (const table of [
    'scrobble_recent',
    'scrobble_unmatched',
    'scrobble_mappings',
    'scrobblers',
    'title_refs',
    'title_names',
    'webhook_attempts',
    'webhook_messages',
    'webhooks',
    'sync_deletions',
    'history_events',
    'history_viewings',
    'user_settings',
    'rating_entries',
    'rating_revisions',
    'access_tokens',
    'oauth_refresh_tokens',
    'oauth_authorization_codes',
    'oauth_grants',
    'oauth_clients',
    'external_identities',
    'blocked_external_identities',
    'ip_denials',
    'sign_in_resets',
    'title_tags',
    'titles',
    'users',
  ]) {
    await dataSource.query(`DELETE FROM ${table}`);
  }
  // A server an earlier spec killed with SIGKILL in its purge round holds the lease for minutes:
  // a test's PurgeRunner.runOnce would find it taken and purge nothing.
  await dataSource
    .createQueryBuilder()
    .update(PurgeLease)
    .set({ holder: null, expiresAt: new Date(0) })
    .execute();
}

/** A supertest agent that sends the headers every API call needs. */
export function api(app: NestFastifyApplication, token?: string) {
  const server = app.getHttpServer();
  const withHeaders = (test: request.Test) => {
    void test.set('User-Agent', USER_AGENT);
    if (token) void test.set('Authorization', `Bearer ${token}`);
    return test;
  };
  return {
    get: (path: string) => withHeaders(request(server).get(path)),
    delete: (path: string) => withHeaders(request(server).delete(path)),
    post: (path: string, body?: unknown) => {
      const test = withHeaders(request(server).post(path));
      return body === undefined
        ? test
        : test.set('Content-Type', 'application/json').send(JSON.stringify(body));
    },
    put: (path: string, body?: unknown) => {
      const test = withHeaders(request(server).put(path));
      return body === undefined
        ? test
        : test.set('Content-Type', 'application/json').send(JSON.stringify(body));
    },
  };
}
