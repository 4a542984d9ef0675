import { resolve } from 'node:path';
import { describeDatabase, redactUrl } from '../database/describe-database';
import { readyFacts, readyMessage, serverUrl } from './ready-line';

describe('the ready line', () => {
  it('masks a password and drops the query string of a URL', () => {
    expect(redactUrl('mysql://ratings:p%40ss@db.example:3306/ratings?password=x&ssl=1')).toBe(
      'mysql://ratings:***@db.example:3306/ratings',
    );
    expect(redactUrl('redis://:hunter2@cache:6379/0')).toBe('redis://:***@cache:6379/0');
    expect(redactUrl('mysql://root@127.0.0.1:3306/test')).toBe('mysql://root@127.0.0.1:3306/test');
  });

  it('points a browser at localhost when listening on every interface', () => {
    expect(serverUrl({ address: '::', family: 'IPv6', port: 3000 })).toBe('http://localhost:3000');
    expect(serverUrl({ address: '0.0.0.0', family: 'IPv4', port: 80 })).toBe('http://localhost:80');
    expect(serverUrl({ address: '::1', family: 'IPv6', port: 3000 })).toBe('http://[::1]:3000');
    expect(serverUrl({ address: '10.0.0.5', family: 'IPv4', port: 8080 })).toBe(
      'http://10.0.0.5:8080',
    );
  });

  it('names the database kind and where it is: an absolute SQLite path, a URL without password', () => {
    expect(describeDatabase({ type: 'better-sqlite3', database: './data/ratings.sqlite' })).toBe(
      `SQLite ${resolve('data/ratings.sqlite')}`,
    );
    expect(describeDatabase({ type: 'mysql', url: 'mysql://app:secret@db:3306/ratings' })).toBe(
      'MySQL/MariaDB mysql://app:***@db:3306/ratings',
    );
  });

  it('says Redis is off, or on and where', () => {
    const address = { address: '127.0.0.1', family: 'IPv4', port: 3000 };
    const sqlite = { type: 'better-sqlite3', database: '/srv/ratings.sqlite' } as const;
    const off = readyFacts(address, sqlite, null);
    expect(off.redis).toBe('off');
    expect(readyMessage(off)).toMatch(
      /^Ready on http:\/\/127\.0\.0\.1:3000 \(listening on 127\.0\.0\.1:3000\); database: SQLite \/srv\/ratings\.sqlite; Redis: off; version \d+\.\d+\.\d+/,
    );
    const on = readyFacts(address, sqlite, 'redis://:pw@cache:6379');
    expect(on.redis).toBe('on redis://:***@cache:6379');
  });
});
