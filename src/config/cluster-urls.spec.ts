import { InvalidConfigError, loadConfig } from './app-config';
import { redactMultiHostUrl } from './cluster-urls';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof InvalidConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('multi-host DATABASE_URL (contract §23)', () => {
  it('lists the nodes in order, the first host standing in the one-host URL', () => {
    const { database } = loadConfig({
      DATABASE_URL: 'mysql://app:p%40ss@db1:3306,db2:3307,db3/ratings?ssl=true',
    });
    expect(database).toEqual({
      type: 'mysql',
      url: 'mysql://app:p%40ss@db1:3306/ratings?ssl=true',
      galera: {
        nodes: [
          { host: 'db1', port: 3306 },
          { host: 'db2', port: 3307 },
          { host: 'db3', port: 3306 },
        ],
        user: 'app',
        password: 'p@ss',
        database: 'ratings',
        query: '?ssl=true',
      },
    });
  });

  it('takes mariadb://, IPv6 hosts and no credentials', () => {
    const { database } = loadConfig({ DATABASE_URL: 'mariadb://[::1]:4306,10.0.0.2:4307/db' });
    expect(database).toMatchObject({
      type: 'mysql',
      url: 'mysql://[::1]:4306/db',
      galera: {
        nodes: [
          { host: '::1', port: 4306 },
          { host: '10.0.0.2', port: 4307 },
        ],
        user: '',
      },
    });
  });

  it('leaves a one-host URL exactly as before', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://app:secret@db:3306/ratings' }).database).toEqual({
      type: 'mysql',
      url: 'mysql://app:secret@db:3306/ratings',
    });
  });

  it.each([
    [
      'mysql://u:p@h1:3306,h2:3306',
      /^DATABASE_URL with several hosts must be mysql:\/\/user:pass@host1:3306/,
    ],
    ['mysql://u:p@h1:3306,h2:3306/', /^DATABASE_URL must name a database/],
    ['mysql://u:p@h1:3306,,h2:3306/db', /^DATABASE_URL names "", which is not a host:port/],
    ['mysql://u:p@h1:3306,h2:port/db', /^DATABASE_URL names "h2:port", which is not a host:port/],
    ['mysql://u:p@h1:3306,h2:70000/db', /^DATABASE_URL names "h2:70000", which is not a host:port/],
    ['mysql://u:%ZZ@h1,h2/db', /^DATABASE_URL has a user name or password that is not valid/],
  ])('refuses %s with one message naming DATABASE_URL', (url, message) => {
    const problems = problemsOf({ DATABASE_URL: url });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });
});

describe('redis+sentinel:// REDIS_URL (contract §23)', () => {
  it('names the Sentinels, the primary and the password', () => {
    const config = loadConfig({
      REDIS_URL: 'redis+sentinel://:s%3Acret@s1:26379,s2:26380,s3/mymaster',
    });
    expect(config.redisSentinel).toEqual({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
        { host: 's3', port: 26379 },
      ],
      name: 'mymaster',
      password: 's:cret',
    });
    expect(config.redisUrl).toBe('redis+sentinel://:s%3Acret@s1:26379,s2:26380,s3/mymaster');
  });

  it('takes one Sentinel and no password', () => {
    expect(loadConfig({ REDIS_URL: 'redis+sentinel://s1:26379/main' }).redisSentinel).toEqual({
      sentinels: [{ host: 's1', port: 26379 }],
      name: 'main',
      password: null,
    });
  });

  it('keeps redis:// as before', () => {
    const config = loadConfig({ REDIS_URL: 'redis://cache:6379' });
    expect(config.redisSentinel).toBeNull();
    expect(config.redisUrl).toBe('redis://cache:6379');
  });

  it.each([
    ['redis+sentinel://s1:26379,s2:26379', /^REDIS_URL must be redis\+sentinel:\/\//],
    ['redis+sentinel://s1:26379,s2:26379/', /^REDIS_URL must name the Sentinels' primary/],
    ['redis+sentinel://s1:26379,s2:x/main', /^REDIS_URL names "s2:x", which is not a host:port/],
    [
      'redis+sentinel://secret@s1:26379/main',
      /^REDIS_URL has a password that is empty, not after a colon/,
    ],
    ['redis+sentinel://:@s1:26379/main', /^REDIS_URL has a password that is empty/],
  ])('refuses %s with one message naming REDIS_URL', (url, message) => {
    const problems = problemsOf({ REDIS_URL: url });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('masks the password when shown', () => {
    expect(redactMultiHostUrl('redis+sentinel://:secret@s1:26379,s2:26379/main')).toBe(
      'redis+sentinel://:***@s1:26379,s2:26379/main',
    );
    expect(redactMultiHostUrl('mysql://app:secret@h1:3306,h2:3306/db?x=1')).toBe(
      'mysql://app:***@h1:3306,h2:3306/db',
    );
  });
});
