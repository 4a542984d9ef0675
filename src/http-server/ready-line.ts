import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { describeDatabase, redactUrl } from '../database/describe-database';
import { packageVersion } from '../docs/package-version';
import { AppLogger } from '../logging/app-logger';

export interface ReadyFacts {
  url: string;
  address: string;
  database: string;
  redis: string;
  version: string;
}

/** Where to point a browser: a wildcard address is reached as localhost. */
export function serverUrl(address: AddressInfo): string {
  const wildcard = address.address === '::' || address.address === '0.0.0.0';
  const host = wildcard
    ? 'localhost'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  return `http://${host}:${address.port}`;
}

export function readyFacts(
  address: AddressInfo,
  database: DataSourceOptions,
  redisUrl: string | null,
): ReadyFacts {
  return {
    url: serverUrl(address),
    address:
      address.family === 'IPv6'
        ? `[${address.address}]:${address.port}`
        : `${address.address}:${address.port}`,
    database: describeDatabase(database),
    redis: redisUrl === null ? 'off' : `on ${redactUrl(redisUrl)}`,
    version: packageVersion(),
  };
}

export function readyMessage(facts: ReadyFacts): string {
  return `Ready on ${facts.url} (listening on ${facts.address}); database: ${facts.database}; Redis: ${facts.redis}; version ${facts.version}`;
}

/**
 * The one line an operator looks for once the server listens: where to reach it, which database
 * and Redis it uses (never a password) and which version runs. Printed at any LOG_LEVEL.
 */
export function announceReady(app: NestFastifyApplication, config: AppConfig): void {
  const address = app.getHttpServer().address() as AddressInfo;
  const facts = readyFacts(address, app.get(DataSource).options, config.redisUrl);
  app
    .get(AppLogger)
    .pino.child({}, { level: 'info' })
    .info({ context: 'Server', ...facts }, readyMessage(facts));
}
