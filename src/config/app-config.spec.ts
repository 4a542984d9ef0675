import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { DEFAULT_SQLITE_PATH, InvalidConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('applies the defaults of contract §4, §5 and §9', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      bodyCacheBytes: 32 * 1024 * 1024,
      port: 3000,
      host: null,
      http: { requestTimeoutSeconds: 30, maxConnections: 1000 },
      database: { type: 'sqlite', path: DEFAULT_SQLITE_PATH },
      redisUrl: null,
      scrobbleRateLimit: 120,
      redisSentinel: null,
      redisKeyPrefix: 'ratings:',
      trustProxy: false,
      corsOrigins: [],
      rateLimit: { user: { limit: 10, windowSeconds: 60 }, ip: { limit: 100, windowSeconds: 120 } },
      userAgent: { blocklist: [], denyThreshold: 10, denyWindowSeconds: 600, denySeconds: 900 },
      oauth: { accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 2_592_000 },
      oauthServer: true,
      serviceName: 'Anime & manga ratings',
      docsOAuthClientId: null,
      publicLists: false,
      publicCards: false,
      externalJwt: null,
      logLevel: 'info',
      sync: { retentionSeconds: 2_592_000 },
      databaseTimeoutMs: 5000,
      metricsToken: null,
      metricsEnabled: true,
      purgeIntervalSeconds: 3600,
      webhooks: {
        retrySeconds: [5, 30, 120, 600, 1800, 7200, 21600],
        allowPrivate: false,
        timeoutSeconds: 10,
      },
    });
  });

  it('puts the default SQLite file in the package folder, whatever the working directory', () => {
    expect(isAbsolute(DEFAULT_SQLITE_PATH)).toBe(true);
    expect(existsSync(join(dirname(dirname(DEFAULT_SQLITE_PATH)), 'package.json'))).toBe(true);
    expect(DEFAULT_SQLITE_PATH.endsWith(join('data', 'ratings.sqlite'))).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'mysql://app:secret@db:3306/ratings',
      REDIS_URL: 'redis://cache:6379',
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
      RATE_LIMIT_USER_LIMIT: '5',
      RATE_LIMIT_USER_WINDOW_SECONDS: '30',
      RATE_LIMIT_IP_LIMIT: '50',
      RATE_LIMIT_IP_WINDOW_SECONDS: '90',
      UA_BLOCKLIST: 'acme, foo ,',
      UA_DENY_THRESHOLD: '0',
      UA_DENY_WINDOW_SECONDS: '60',
      UA_DENY_SECONDS: '120',
      ACCESS_TOKEN_TTL_SECONDS: '900',
      REFRESH_TOKEN_TTL_SECONDS: '86400',
      OAUTH_SERVER: 'false',
      PUBLIC_LISTS: 'true',
      PUBLIC_CARDS: 'true',
      AUTH_JWT_ISSUER: 'https://login.example.com/realms/staff',
      AUTH_JWT_JWKS_URL: 'https://login.example.com/realms/staff/certs',
      AUTH_JWT_AUDIENCE: 'ratings-api',
      LOG_LEVEL: 'DEBUG',
      DATABASE_TIMEOUT_MS: '1500',
      METRICS_TOKEN: ' scrape-secret ',
      METRICS_ENABLED: 'false',
      PURGE_INTERVAL_SECONDS: '60',
      SERVICE_NAME: ' Otaku Club Ratings ',
      DOCS_OAUTH_CLIENT_ID: 'xoTCnhc5wcZegbUzFEDCJw',
    });
    expect(config.port).toBe(8080);
    expect(config.database).toEqual({ type: 'mysql', url: 'mysql://app:secret@db:3306/ratings' });
    expect(config.redisUrl).toBe('redis://cache:6379');
    expect(config.trustProxy).toEqual(['loopback', '10.0.0.0/8']);
    expect(config.rateLimit).toEqual({
      user: { limit: 5, windowSeconds: 30 },
      ip: { limit: 50, windowSeconds: 90 },
    });
    expect(config.userAgent).toEqual({
      blocklist: ['acme', 'foo'],
      denyThreshold: 0,
      denyWindowSeconds: 60,
      denySeconds: 120,
    });
    expect(config.oauth).toEqual({ accessTokenTtlSeconds: 900, refreshTokenTtlSeconds: 86400 });
    expect(config.oauthServer).toBe(false);
    expect(config.publicLists).toBe(true);
    expect(config.publicCards).toBe(true);
    expect(config.externalJwt).toEqual({
      issuer: 'https://login.example.com/realms/staff',
      jwksUrl: 'https://login.example.com/realms/staff/certs',
      audience: 'ratings-api',
    });
    expect(config.logLevel).toBe('debug');
    expect(config.databaseTimeoutMs).toBe(1500);
    expect(config.metricsToken).toBe('scrape-secret');
    expect(config.metricsEnabled).toBe(false);
    expect(config.purgeIntervalSeconds).toBe(60);
    expect(config.serviceName).toBe('Otaku Club Ratings');
    expect(config.docsOAuthClientId).toBe('xoTCnhc5wcZegbUzFEDCJw');
  });

  it('SERVICE_NAME: one line of at most 100 characters', () => {
    expect(() => loadConfig({ SERVICE_NAME: 'x'.repeat(101) })).toThrow(/SERVICE_NAME must be/);
    expect(() => loadConfig({ SERVICE_NAME: 'Two\nlines' })).toThrow(/SERVICE_NAME must be/);
    expect(loadConfig({ SERVICE_NAME: '  ' }).serviceName).toBe('Anime & manga ratings');
  });

  it('refuses a database timeout below 100 ms and a purge interval of 0', () => {
    expect(() => loadConfig({ DATABASE_TIMEOUT_MS: '50', PURGE_INTERVAL_SECONDS: '0' })).toThrow(
      /DATABASE_TIMEOUT_MS must be an integer from 100[\s\S]*PURGE_INTERVAL_SECONDS must be/,
    );
  });

  it('AUTH_JWT_* are set together or not at all, the JWKS at an http(s) URL', () => {
    expect(() => loadConfig({ AUTH_JWT_ISSUER: 'https://idp.example' })).toThrow(
      /must be set together/,
    );
    expect(() =>
      loadConfig({
        AUTH_JWT_ISSUER: 'https://idp.example',
        AUTH_JWT_JWKS_URL: 'file:///etc/jwks.json',
        AUTH_JWT_AUDIENCE: 'ratings',
      }),
    ).toThrow(/AUTH_JWT_JWKS_URL/);
  });

  it.each([
    ['sqlite:/var/lib/ratings.sqlite', { type: 'sqlite', path: '/var/lib/ratings.sqlite' }],
    ['sqlite:./local.sqlite', { type: 'sqlite', path: './local.sqlite' }],
  ])('DATABASE_URL=%s', (url, expected) => {
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual(expected);
  });

  it('HOST, REQUEST_TIMEOUT_SECONDS and MAX_CONNECTIONS', () => {
    for (const host of ['127.0.0.1', '::1', '::', '0.0.0.0', 'localhost', 'api.internal']) {
      expect(loadConfig({ HOST: host }).host).toBe(host);
    }
    for (const host of ['[::1]', 'http://x', 'a b', '127.0.0.1:80']) {
      expect(() => loadConfig({ HOST: host })).toThrow(/HOST must be/);
    }
    expect(loadConfig({ REQUEST_TIMEOUT_SECONDS: '5', MAX_CONNECTIONS: '64' }).http).toEqual({
      requestTimeoutSeconds: 5,
      maxConnections: 64,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '0' })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS/);
  });

  it('CORS_ORIGINS: a comma list of exact origins', () => {
    expect(
      loadConfig({ CORS_ORIGINS: 'https://app.example, http://localhost:5173' }).corsOrigins,
    ).toEqual(['https://app.example', 'http://localhost:5173']);
    for (const bad of ['https://app.example/', 'app.example', '*', 'ftp://x.example', 'null']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
  });

  it('TRUST_PROXY=true trusts every proxy, a number that many hops', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
  });

  it.each([
    ['fatal', 'error'],
    ['silent', 'error'],
    ['warning', 'warn'],
    ['log', 'info'],
    ['verbose', 'debug'],
    ['trace', 'debug'],
  ])('LOG_LEVEL=%s means %s', (raw, level) => {
    expect(loadConfig({ LOG_LEVEL: raw }).logLevel).toBe(level);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'postgres://x/y',
        RATE_LIMIT_USER_LIMIT: '0',
        UA_DENY_SECONDS: '-5',
        ACCESS_TOKEN_TTL_SECONDS: '30',
        REFRESH_TOKEN_TTL_SECONDS: 'month',
        TRUST_PROXY: 'not-an-address',
        LOG_LEVEL: 'loud',
        REDIS_URL: 'http://cache',
        OAUTH_SERVER: 'maybe',
        AUTH_JWT_AUDIENCE: 'ratings',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    const names = (error as InvalidConfigError).problems.map((problem) => problem.split(' ')[0]);
    expect(names).toEqual([
      'PORT',
      'DATABASE_URL',
      'REDIS_URL',
      'TRUST_PROXY',
      'RATE_LIMIT_USER_LIMIT',
      'UA_DENY_SECONDS',
      'ACCESS_TOKEN_TTL_SECONDS',
      'REFRESH_TOKEN_TTL_SECONDS',
      'OAUTH_SERVER',
      'AUTH_JWT_ISSUER,',
      'LOG_LEVEL',
    ]);
  });

  it.each([
    ['30', 2_592_000],
    ['0.0001', 8.64],
    ['1.5', 129_600],
  ])('SYNC_RETENTION_DAYS=%s keeps %s seconds', (raw, seconds) => {
    expect(loadConfig({ SYNC_RETENTION_DAYS: raw }).sync.retentionSeconds).toBeCloseTo(seconds);
  });

  it.each(['0', '-1', 'soon', '1e3', '36501', '.5'])('refuses SYNC_RETENTION_DAYS=%s', (raw) => {
    expect(() => loadConfig({ SYNC_RETENTION_DAYS: raw })).toThrow(/SYNC_RETENTION_DAYS/);
  });

  it('reads the webhook variables', () => {
    const config = loadConfig({
      WEBHOOK_RETRY_SECONDS: '1, 0.5,30',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT_SECONDS: '2.5',
    });
    expect(config.webhooks).toEqual({
      retrySeconds: [1, 0.5, 30],
      allowPrivate: true,
      timeoutSeconds: 2.5,
    });
    expect(loadConfig({}).webhooks.timeoutSeconds).toBe(10);
    expect(loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '15' }).webhooks.timeoutSeconds).toBe(15);
  });

  it.each(['5,,30', 'soon', '-1', '5;30', '700000', Array(21).fill('1').join(',')])(
    'refuses WEBHOOK_RETRY_SECONDS=%s',
    (raw) => {
      expect(() => loadConfig({ WEBHOOK_RETRY_SECONDS: raw })).toThrow(/WEBHOOK_RETRY_SECONDS/);
    },
  );

  it.each([
    ['WEBHOOK_ALLOW_PRIVATE', 'yes'],
    ['WEBHOOK_TIMEOUT_SECONDS', '0'],
    ['WEBHOOK_TIMEOUT_SECONDS', '15.5'],
    ['WEBHOOK_TIMEOUT_SECONDS', '60'],
  ])('refuses %s=%s', (name, raw) => {
    expect(() => loadConfig({ [name]: raw })).toThrow(new RegExp(name));
  });

  it('names the bound a longer WEBHOOK_TIMEOUT_SECONDS would break', () => {
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '20' })).toThrow(
      /at most 15, so that an event claimed by a process that dies is sent by another instance within 30 s/,
    );
  });
});
