import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import {
  type GaleraTarget,
  isMultiHostMysqlUrl,
  parseGaleraUrl,
  parseSentinelUrl,
  type SentinelTarget,
} from './cluster-urls';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/**
 * `galera`: the URL named several hosts (contract §23); `url` is then the same URL with the first
 * host only, for what reads the database name or user from it.
 */
export type DatabaseTarget =
  { type: 'sqlite'; path: string } | { type: 'mysql'; url: string; galera?: GaleraTarget };

export interface RateWindow {
  limit: number;
  windowSeconds: number;
}

/** The whole environment of contract §9, parsed and validated once. */
export interface AppConfig {
  port: number;
  /** HOST: the listening address; null = every interface (`::`, or `0.0.0.0` without IPv6). */
  host: string | null;
  http: {
    /** REQUEST_TIMEOUT_SECONDS: the whole request, headers and body, from its first byte. */
    requestTimeoutSeconds: number;
    /** MAX_CONNECTIONS: open connections an instance keeps; further ones are closed at once. */
    maxConnections: number;
  };
  database: DatabaseTarget;
  redisUrl: string | null;
  /** REDIS_URL as `redis+sentinel://…` (contract §23): the Sentinels to follow; null otherwise. */
  redisSentinel: SentinelTarget | null;
  /** Prefix of every Redis key, so that deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  /** CORS_ORIGINS: browser origins allowed to call the API and the OAuth endpoints (contract §17). */
  corsOrigins: string[];
  /** As Fastify/Express "trust proxy": false, true, a hop count, or addresses, CIDRs and names like `loopback`. */
  trustProxy: boolean | number | string[];
  rateLimit: { user: RateWindow; ip: RateWindow };
  /** SCROBBLE_RATE_LIMIT: requests per secret per 60 s at the scrobble receiver (contract §21). */
  scrobbleRateLimit: number;
  userAgent: {
    blocklist: string[];
    denyThreshold: number;
    denyWindowSeconds: number;
    denySeconds: number;
  };
  /** Lifetimes of the tokens the OAuth 2.0 authorization server issues. */
  oauth: { accessTokenTtlSeconds: number; refreshTokenTtlSeconds: number };
  /** false: the built-in OAuth 2.0 authorization server is off (OAUTH_SERVER=false). */
  oauthServer: boolean;
  /** SERVICE_NAME: how the sign-in and consent page names this service to its users. */
  serviceName: string;
  /** DOCS_OAUTH_CLIENT_ID: the client id Swagger UI's "Authorize" fills in; null: the reader types it. */
  docsOAuthClientId: string | null;
  /** true: other users may read a user's visible entries and public profile (contract §18). */
  publicLists: boolean;
  /** true: users who opted in have a public SVG card at /v1/users/{name}/card.svg (contract §22). */
  publicCards: boolean;
  /** JWT access tokens of the company's identity provider (contract §19); null when not set. */
  externalJwt: ExternalJwtConfig | null;
  logLevel: LogLevel;
  /** How long sync cursors and the deletions they report are kept (contract §12). */
  sync: { retentionSeconds: number };
  /** Bound of each query and each wait for a connection (SQLite: its busy timeout), contract §16. */
  databaseTimeoutMs: number;
  /** Bound in bytes of the serialized bodies kept for versioned reads (BODY_CACHE_MB); 0: none. */
  bodyCacheBytes: number;
  /** Bearer token GET /metrics needs; null: /metrics is open (keep it off the public network). */
  metricsToken: string | null;
  /** false (METRICS_ENABLED=false): no /metrics and no per-request counting. */
  metricsEnabled: boolean;
  /** Seconds between two runs of the purges of contract §16. */
  purgeIntervalSeconds: number;
  webhooks: WebhooksConfig;
}

/** Outbound webhooks (contract §15). */
export interface WebhooksConfig {
  /** The delay before each retry, in seconds: 1 + retrySeconds.length attempts in all. */
  retrySeconds: number[];
  /** true: receivers on loopback, private and other non-global addresses are allowed. */
  allowPrivate: boolean;
  /** An attempt without a complete response after this many seconds is aborted and fails. */
  timeoutSeconds: number;
}

export const DEFAULT_WEBHOOK_RETRY_SECONDS = [5, 30, 120, 600, 1800, 7200, 21600];
/**
 * The longest WEBHOOK_TIMEOUT_SECONDS. A claim on an event lasts the attempt's timeout plus 10 s
 * and the servers read the outbox every second (WebhookDispatcher), so an event claimed by a
 * process that dies is sent by another instance within 15 + 10 + 1 s: inside contract §15's 30 s.
 */
export const MAX_WEBHOOK_TIMEOUT_SECONDS = 15;

export interface ExternalJwtConfig {
  /** Expected `iss`, exactly. */
  issuer: string;
  jwksUrl: string;
  /** Expected in `aud`. */
  audience: string;
}

/**
 * `data/ratings.sqlite` in the package's folder (the one holding package.json: this file is in
 * src/config or dist/config), not in the working directory: the server and the CLI find the same
 * file wherever they are started from.
 */
export const DEFAULT_SQLITE_PATH = join(resolve(__dirname, '..', '..'), 'data', 'ratings.sqlite');
export const DEFAULT_DATABASE_TIMEOUT_MS = 5000;

export class InvalidConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'InvalidConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads every variable, collecting all problems before failing, so an operator fixes the
 * environment in one pass instead of one variable per restart.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };

  const config: AppConfig = {
    port: integer('PORT', 3000, 0, 65535),
    host: parseHost(env.HOST, problems),
    http: {
      requestTimeoutSeconds: integer('REQUEST_TIMEOUT_SECONDS', 30, 1, 3600),
      maxConnections: integer('MAX_CONNECTIONS', 1000, 1, 1_000_000),
    },
    database: parseDatabaseUrl(env.DATABASE_URL, problems),
    redisUrl: parseRedisUrl(env.REDIS_URL, problems),
    redisSentinel: parseRedisSentinel(env.REDIS_URL, problems),
    redisKeyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'ratings:',
    trustProxy: parseTrustProxy(env.TRUST_PROXY, problems),
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS, problems),
    rateLimit: {
      user: {
        limit: integer('RATE_LIMIT_USER_LIMIT', 10, 1, 1_000_000_000),
        windowSeconds: integer('RATE_LIMIT_USER_WINDOW_SECONDS', 60, 1, 31_536_000),
      },
      ip: {
        limit: integer('RATE_LIMIT_IP_LIMIT', 100, 1, 1_000_000_000),
        windowSeconds: integer('RATE_LIMIT_IP_WINDOW_SECONDS', 120, 1, 31_536_000),
      },
    },
    scrobbleRateLimit: integer('SCROBBLE_RATE_LIMIT', 120, 1, 1_000_000_000),
    userAgent: {
      blocklist: (env.UA_BLOCKLIST ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name.length > 0),
      denyThreshold: integer('UA_DENY_THRESHOLD', 10, 0, 1_000_000),
      denyWindowSeconds: integer('UA_DENY_WINDOW_SECONDS', 600, 1, 31_536_000),
      denySeconds: integer('UA_DENY_SECONDS', 900, 1, 31_536_000),
    },
    oauth: {
      accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 31_536_000),
      refreshTokenTtlSeconds: integer('REFRESH_TOKEN_TTL_SECONDS', 2_592_000, 60, 315_360_000),
    },
    oauthServer: parseBoolean('OAUTH_SERVER', env.OAUTH_SERVER, true, problems),
    serviceName: parseServiceName(env.SERVICE_NAME, problems),
    docsOAuthClientId: env.DOCS_OAUTH_CLIENT_ID?.trim() || null,
    publicLists: parseBoolean('PUBLIC_LISTS', env.PUBLIC_LISTS, false, problems),
    publicCards: parseBoolean('PUBLIC_CARDS', env.PUBLIC_CARDS, false, problems),
    externalJwt: parseExternalJwt(env, problems),
    logLevel: parseLogLevel(env.LOG_LEVEL, problems),
    sync: { retentionSeconds: parseRetentionDays(env.SYNC_RETENTION_DAYS, problems) * 86_400 },
    databaseTimeoutMs: integer('DATABASE_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUT_MS, 100, 600_000),
    bodyCacheBytes: integer('BODY_CACHE_MB', 32, 0, 4096) * 1024 * 1024,
    metricsToken: env.METRICS_TOKEN?.trim() || null,
    metricsEnabled: parseBoolean('METRICS_ENABLED', env.METRICS_ENABLED, true, problems),
    purgeIntervalSeconds: integer('PURGE_INTERVAL_SECONDS', 3600, 1, 31_536_000),
    webhooks: {
      retrySeconds: parseRetrySeconds(env.WEBHOOK_RETRY_SECONDS, problems),
      allowPrivate: parseBoolean(
        'WEBHOOK_ALLOW_PRIVATE',
        env.WEBHOOK_ALLOW_PRIVATE,
        false,
        problems,
      ),
      timeoutSeconds: parseWebhookTimeout(env.WEBHOOK_TIMEOUT_SECONDS, problems),
    },
  };

  if (problems.length > 0) throw new InvalidConfigError(problems);
  return config;
}

/** An IP address (IPv4, or IPv6 without brackets) or a host name such as `localhost`. */
function parseHost(raw: string | undefined, problems: string[]): string | null {
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  if (isIP(value) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(value))
    return value;
  problems.push(
    `HOST must be an IP address (such as 127.0.0.1 or ::) or a host name (got "${raw}")`,
  );
  return null;
}

export const DEFAULT_SERVICE_NAME = 'Anime & manga ratings';
const MAX_SERVICE_NAME_LENGTH = 100;

function parseServiceName(raw: string | undefined, problems: string[]): string {
  const value = raw?.trim() ?? '';
  if (value === '') return DEFAULT_SERVICE_NAME;
  if (value.length > MAX_SERVICE_NAME_LENGTH || /\p{Cc}/u.test(value)) {
    problems.push(
      `SERVICE_NAME must be at most ${MAX_SERVICE_NAME_LENGTH} characters on one line (got "${raw}")`,
    );
    return DEFAULT_SERVICE_NAME;
  }
  return value;
}

const MAX_RETENTION_DAYS = 36_500;

/** Days, decimals allowed (0.0001 is about 9 seconds), above 0. */
function parseRetentionDays(raw: string | undefined, problems: string[]): number {
  if (raw === undefined || raw.trim() === '') return 30;
  const days = Number(raw.trim());
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || days <= 0 || days > MAX_RETENTION_DAYS) {
    problems.push(
      `SYNC_RETENTION_DAYS must be a number of days above 0 and at most ${MAX_RETENTION_DAYS}, decimals allowed (got "${raw}")`,
    );
    return 30;
  }
  return days;
}

const MAX_RETRIES = 20;
const MAX_DELAY_SECONDS = 604_800;

/** A comma list of delays in seconds (decimals allowed), at most 20 of them, each up to a week. */
function parseRetrySeconds(raw: string | undefined, problems: string[]): number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_WEBHOOK_RETRY_SECONDS;
  const parts = raw.split(',').map((part) => part.trim());
  const valid = parts.every(
    (part) => /^\d+(\.\d+)?$/.test(part) && Number(part) <= MAX_DELAY_SECONDS,
  );
  if (!valid || parts.length > MAX_RETRIES) {
    problems.push(
      `WEBHOOK_RETRY_SECONDS must be a comma list of at most ${MAX_RETRIES} delays in seconds, each from 0 to ${MAX_DELAY_SECONDS} (got "${raw}")`,
    );
    return DEFAULT_WEBHOOK_RETRY_SECONDS;
  }
  return parts.map(Number);
}

/** Seconds above 0 and at most MAX_WEBHOOK_TIMEOUT_SECONDS, decimals allowed. */
function parseWebhookTimeout(raw: string | undefined, problems: string[]): number {
  if (raw === undefined || raw.trim() === '') return 10;
  const seconds = Number(raw.trim());
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || seconds <= 0 || seconds > MAX_WEBHOOK_TIMEOUT_SECONDS) {
    problems.push(
      `WEBHOOK_TIMEOUT_SECONDS must be a number of seconds above 0 and at most ${MAX_WEBHOOK_TIMEOUT_SECONDS}, so that an event claimed by a process that dies is sent by another instance within 30 s (got "${raw}")`,
    );
    return 10;
  }
  return seconds;
}

function parseDatabaseUrl(raw: string | undefined, problems: string[]): DatabaseTarget {
  if (raw === undefined || raw.trim() === '') return { type: 'sqlite', path: DEFAULT_SQLITE_PATH };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') problems.push('DATABASE_URL sqlite:PATH needs a file path');
    return { type: 'sqlite', path };
  }
  if (isMultiHostMysqlUrl(raw)) {
    const galera = parseGaleraUrl(raw);
    if (typeof galera === 'string') {
      problems.push(galera);
      return { type: 'sqlite', path: DEFAULT_SQLITE_PATH };
    }
    const first = galera.nodes[0];
    const host = first.host.includes(':') ? `[${first.host}]` : first.host;
    const url = raw
      .replace(/^mariadb:/, 'mysql:')
      .replace(/@[^/]*\//, `@${host}:${first.port}/`)
      .replace(/^mysql:\/\/[^@/]*\//, `mysql://${host}:${first.port}/`);
    return { type: 'mysql', url, galera };
  }
  try {
    const url = new URL(raw);
    if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') throw new Error('scheme');
    if (url.pathname.length <= 1) {
      problems.push('DATABASE_URL must name a database: mysql://user:pass@host:3306/db');
    }
    return { type: 'mysql', url: raw.replace(/^mariadb:/, 'mysql:') };
  } catch {
    problems.push('DATABASE_URL must be sqlite:PATH or mysql://user:pass@host:3306/db');
    return { type: 'sqlite', path: DEFAULT_SQLITE_PATH };
  }
}

function parseRedisUrl(raw: string | undefined, problems: string[]): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  if (raw.startsWith('redis+sentinel:')) return raw;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('scheme');
    return raw;
  } catch {
    problems.push(
      'REDIS_URL must be redis://host:6379, rediss://… or redis+sentinel://host1:26379,host2:26379/MASTER_NAME',
    );
    return null;
  }
}

function parseRedisSentinel(raw: string | undefined, problems: string[]): SentinelTarget | null {
  if (raw === undefined || !raw.startsWith('redis+sentinel:')) return null;
  const sentinel = parseSentinelUrl(raw);
  if (typeof sentinel === 'string') {
    problems.push(sentinel);
    return null;
  }
  return sentinel;
}

function parseTrustProxy(raw: string | undefined, problems: string[]): boolean | number | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  const named = new Set(['loopback', 'linklocal', 'uniquelocal']);
  const bad = entries.filter((entry) => !named.has(entry) && !isAddressOrCidr(entry));
  if (bad.length > 0) {
    problems.push(
      `TRUST_PROXY must be true, false, loopback, or a comma list of addresses/CIDRs (bad: ${bad.join(', ')})`,
    );
    return false;
  }
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || isIP(address) === 0) return false;
  if (prefix === undefined) return true;
  const max = isIP(address) === 4 ? 32 : 128;
  return /^\d+$/.test(prefix) && Number(prefix) <= max;
}

function parseBoolean(
  name: string,
  raw: string | undefined,
  fallback: boolean,
  problems: string[],
): boolean {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '') return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  problems.push(`${name} must be true or false (got "${raw}")`);
  return fallback;
}

const EXTERNAL_JWT_VARIABLES = [
  'AUTH_JWT_ISSUER',
  'AUTH_JWT_JWKS_URL',
  'AUTH_JWT_AUDIENCE',
] as const;

/** All three variables, or none: half a configuration would silently refuse every JWT. */
function parseExternalJwt(env: Env, problems: string[]): ExternalJwtConfig | null {
  const [issuer, jwksUrl, audience] = EXTERNAL_JWT_VARIABLES.map((name) => env[name]?.trim() ?? '');
  const given = [issuer, jwksUrl, audience].filter((value) => value !== '').length;
  if (given === 0) return null;
  if (given < 3) {
    problems.push(`${EXTERNAL_JWT_VARIABLES.join(', ')} must be set together, or none of them`);
    return null;
  }
  try {
    const url = new URL(jwksUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
  } catch {
    problems.push('AUTH_JWT_JWKS_URL must be an https:// (or http://) URL of the JWKS');
    return null;
  }
  return { issuer, jwksUrl, audience };
}

/** The four levels, and the names other loggers use for them. */
const LOG_LEVELS: Record<string, LogLevel> = {
  silent: 'error',
  fatal: 'error',
  error: 'error',
  warn: 'warn',
  warning: 'warn',
  info: 'info',
  log: 'info',
  debug: 'debug',
  verbose: 'debug',
  trace: 'debug',
};

function parseLogLevel(raw: string | undefined, problems: string[]): LogLevel {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '') return 'info';
  const level = LOG_LEVELS[value];
  if (level) return level;
  problems.push(`LOG_LEVEL must be one of error, warn, info, debug (got "${raw}")`);
  return 'info';
}

/** `https://app.example,http://localhost:5173`: each an origin exactly (scheme, host, port; no path). */
export function parseCorsOrigins(raw: string | undefined, problems: string[]): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    let normal: string | null = null;
    try {
      const url = new URL(origin);
      if (url.protocol === 'http:' || url.protocol === 'https:') normal = url.origin;
    } catch {
      normal = null;
    }
    if (normal !== origin) {
      problems.push(
        `CORS_ORIGINS must list origins such as https://app.example or http://localhost:5173, without path or trailing slash (got "${origin}")`,
      );
    }
  }
  return origins;
}
