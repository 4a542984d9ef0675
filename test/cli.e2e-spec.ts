import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Title } from '../src/catalog/title.entity';
import { ClientsService } from '../src/oauth/clients.service';
import { UsersService } from '../src/users/users.service';
import { exitOf, freePort, runCli, startServer } from './utils/cli';
import { api, useTestApp } from './utils/test-app';
import { tempDir } from './utils/test-services';
import { serverIsLive, sleep } from './utils/wait';

const EXAMPLE_CATALOG = join(__dirname, '..', 'examples', 'catalog.json');

describe('admin CLI (node dist/cli.js)', () => {
  let app: NestFastifyApplication;
  const workDir = tempDir('ratings-cli-');

  useTestApp((created) => (app = created));

  const titleRows = () =>
    app
      .get(DataSource)
      .getRepository(Title)
      .find({ order: { mediaType: 'ASC', id: 'ASC' } });

  describe('mistakes, --version and --help (issue 17 item 7)', () => {
    it.each([
      [['users', 'nuke'], /unknown command 'nuke' for 'users'/],
      [['tokens', 'zap'], /unknown command 'zap' for 'tokens'/],
      [['clients', 'drop'], /unknown command 'drop' for 'clients'/],
      [['catalog', 'wipe'], /unknown command 'wipe' for 'catalog'/],
      [['nuke'], /unknown command 'nuke'/],
      [['users', 'create', '--name', 'x', '--colour', 'red'], /unknown option '--colour'/],
      [['users', 'create'], /required option '--name <name>' not specified/],
      [['tokens', 'revoke'], /give either a token or --user NAME/],
      [['tokens', 'revoke', 'some-token', '--user', 'alice'], /give either a token or --user NAME/],
      [['clients', 'delete'], /missing required argument 'client_id'/],
      [['clients', 'rotate-secret'], /missing required argument 'client_id'/],
      [['denials', 'lift'], /required option '--ip <address>' not specified/],
      [
        ['users', 'unblock', '--iss', 'https://id.example'],
        /required option '--sub <subject>' not specified/,
      ],
      [['users', 'reset-sign-in'], /required option '--name <name>' not specified/],
    ])('%j exits 1 naming what was not understood', async (args, message) => {
      const result = await runCli(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    });

    it('--version prints the package version', async () => {
      const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
      const result = await runCli(['--version']);
      expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    });

    it('--help names the program as it is run and marks required options', async () => {
      const result = await runCli(['users', 'create', '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: node dist/cli.js users create [options]');
      expect(result.stdout).toMatch(/--name <name>\s+Unique user name \(required\)/);
      const group = await runCli(['users']);
      expect(group.code).toBe(0);
      expect(group.stdout).toContain('Usage: node dist/cli.js users');
    });
  });

  describe('users create', () => {
    it('prints the new user as one JSON line', async () => {
      const result = await runCli(['users', 'create', '--name', 'alice']);
      expect(result.code).toBe(0);
      expect(result.stdout.endsWith('\n')).toBe(true);
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      const user = JSON.parse(result.stdout);
      expect(Object.keys(user)).toEqual(['id', 'name', 'joined_at']);
      expect(user).toMatchObject({ id: expect.any(Number), name: 'alice' });
      expect(user.joined_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Math.abs(Date.parse(user.joined_at) - Date.now())).toBeLessThan(60_000);
    });

    it('refuses a taken name and a missing or invalid one, exiting non-zero', async () => {
      expect((await runCli(['users', 'create', '--name', 'bob'])).code).toBe(0);
      const taken = await runCli(['users', 'create', '--name', 'bob']);
      expect(taken.code).not.toBe(0);
      expect(taken.stderr).toMatch(/"bob" already exists/);
      const missing = await runCli(['users', 'create']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toMatch(/--name/);
      const [blank, padded, tooLong] = await Promise.all(
        ['  ', ' padded', 'x'.repeat(65)].map((name) =>
          runCli(['users', 'create', '--name', name]),
        ),
      );
      for (const invalid of [blank, padded, tooLong]) {
        expect(invalid.code).not.toBe(0);
        expect(invalid.stderr).toMatch(/invalid user name/);
      }
    });

    it('accepts any other name of 1 to 64 characters', async () => {
      const names = ['Mary Jane', 'u@example.org', '_tmp', 'ユーザー', 'y'.repeat(64)];
      const results = await Promise.all(
        names.map((name) => runCli(['users', 'create', '--name', name])),
      );
      results.forEach((result, i) => {
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout).name).toBe(names[i]);
      });
    });
  });

  describe('passwords', () => {
    const verify = (name: string, password: string) =>
      app.get(UsersService).verifyCredentials(name, password);

    it('users create --password-stdin stores a hash of the password read from stdin, printing the same line', async () => {
      const result = await runCli(
        ['users', 'create', '--name', 'pia', '--password-stdin'],
        {},
        'correct horse battery\n',
      );
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      expect(Object.keys(JSON.parse(result.stdout))).toEqual(['id', 'name', 'joined_at']);
      expect(result.stdout).not.toContain('horse');
      expect(await verify('pia', 'correct horse battery')).toMatchObject({ name: 'pia' });
      expect(await verify('pia', 'correct horse battery\n')).toBeNull();
      const [row] = await app
        .get(DataSource)
        .query<{ password_hash: string }[]>("SELECT password_hash FROM users WHERE name = 'pia'");
      expect(row.password_hash).toMatch(/^scrypt\$/);
    });

    it('users set-password sets and replaces a password from stdin', async () => {
      expect((await runCli(['users', 'create', '--name', 'quinn'])).code).toBe(0);
      expect(await verify('quinn', 'first password')).toBeNull();
      const set = await runCli(['users', 'set-password', '--name', 'quinn'], {}, 'first password');
      expect(set).toMatchObject({ code: 0, stdout: 'password set\n' });
      expect(await verify('quinn', 'first password')).not.toBeNull();
      await runCli(['users', 'set-password', '--name', 'quinn'], {}, 'second password\r\n');
      expect(await verify('quinn', 'first password')).toBeNull();
      expect(await verify('quinn', 'second password')).not.toBeNull();
    });

    it('refuses a short or empty password and an unknown user, exiting non-zero', async () => {
      const short = await runCli(
        ['users', 'create', '--name', 'rae', '--password-stdin'],
        {},
        'short',
      );
      expect(short.code).not.toBe(0);
      expect(short.stderr).toMatch(/at least 8 characters/);
      // Nothing was created.
      expect((await runCli(['users', 'create', '--name', 'rae'])).code).toBe(0);
      const empty = await runCli(['users', 'set-password', '--name', 'rae'], {}, '');
      expect(empty.code).not.toBe(0);
      expect(empty.stderr).toMatch(/no password/);
      const unknown = await runCli(
        ['users', 'set-password', '--name', 'nobody'],
        {},
        'long enough password',
      );
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toMatch(/no user named "nobody"/);
    });
  });

  describe('clients create', () => {
    it('registers a confidential client: prints its id and its secret once, stores a hash', async () => {
      const result = await runCli([
        'clients',
        'create',
        '--name',
        'ListSync',
        '--redirect-uri',
        'https://listsync.example/callback',
        '--redirect-uri',
        'http://127.0.0.1:8765/callback',
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      const printed = JSON.parse(result.stdout);
      expect(printed).toEqual({
        client_id: expect.stringMatching(/^[\w-]{22}$/),
        client_secret: expect.stringMatching(/^[\w-]{43}$/),
        name: 'ListSync',
        redirect_uris: ['https://listsync.example/callback', 'http://127.0.0.1:8765/callback'],
        token_endpoint_auth_method: 'client_secret_basic',
      });
      const clients = app.get(ClientsService);
      const stored = await clients.findByClientId(printed.client_id);
      expect(stored?.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored?.secretHash).not.toContain(printed.client_secret);
      expect(await clients.authenticate(printed.client_id, printed.client_secret)).not.toBeNull();
      expect(await clients.authenticate(printed.client_id, 'wrong')).toBeNull();
      expect(await clients.authenticate(printed.client_id, undefined)).toBeNull();
    });

    it('registers a public client without a secret', async () => {
      const result = await runCli([
        'clients',
        'create',
        '--name',
        'Pocket',
        '--redirect-uri',
        'com.example.pocket:/oauth',
        '--public',
      ]);
      expect(result.code).toBe(0);
      const printed = JSON.parse(result.stdout);
      expect(printed).not.toHaveProperty('client_secret');
      expect(printed.token_endpoint_auth_method).toBe('none');
      expect(
        await app.get(ClientsService).authenticate(printed.client_id, undefined),
      ).not.toBeNull();
    });

    it('refuses a missing or unsafe redirect URI, exiting non-zero', async () => {
      const missing = await runCli(['clients', 'create', '--name', 'X']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toMatch(/--redirect-uri/);
      for (const [uri, reason] of [
        ['http://app.example/cb', /use https/],
        ['https://app.example/cb#x', /fragment/],
        ['javascript:alert(1)', /scheme "javascript"/],
      ] as const) {
        const result = await runCli(['clients', 'create', '--name', 'X', '--redirect-uri', uri]);
        expect(result.code).not.toBe(0);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(reason);
      }
    });
  });

  describe('tokens issue / revoke', () => {
    it('issues a working token printed alone on one line, then revokes it for every process', async () => {
      await runCli(['users', 'create', '--name', 'carol']);
      const issued = await runCli([
        'tokens',
        'issue',
        '--user',
        'carol',
        '--scopes',
        'ratings.anime user.profile',
      ]);
      expect(issued.code).toBe(0);
      expect(issued.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
      const token = issued.stdout.trim();

      const profile = await api(app, token).get('/v1/my/profile').expect(200);
      expect(profile.body.name).toBe('carol');
      await api(app, token).get('/v1/my/manga/ratings').expect(403);

      const revoked = await runCli(['tokens', 'revoke', token]);
      expect(revoked.code).toBe(0);
      const after = await api(app, token).get('/v1/my/profile').expect(401);
      expect(after.headers['www-authenticate']).toBe(
        'Bearer realm="ratings", error="invalid_token"',
      );
    });

    it('honours --ttl', async () => {
      await runCli(['users', 'create', '--name', 'dave']);
      const issued = await runCli([
        'tokens',
        'issue',
        '--user',
        'dave',
        '--scopes',
        'user.profile',
        '--ttl',
        '1',
      ]);
      const token = issued.stdout.trim();
      await api(app, token).get('/v1/my/profile').expect(200);
      await sleep(2100);
      await api(app, token).get('/v1/my/profile').expect(401);
    });

    it('--ttl 0 issues a token that is already expired', async () => {
      await runCli(['users', 'create', '--name', 'ttl-zero']);
      const issued = await runCli([
        'tokens',
        'issue',
        '--user',
        'ttl-zero',
        '--scopes',
        'user.profile',
        '--ttl',
        '0',
      ]);
      expect(issued.code).toBe(0);
      const response = await api(app, issued.stdout.trim()).get('/v1/my/profile').expect(401);
      expect(response.headers['www-authenticate']).toBe(
        'Bearer realm="ratings", error="invalid_token"',
      );
    });

    it('refuses an unknown user, unknown or missing scopes and a bad ttl, printing no token', async () => {
      await runCli(['users', 'create', '--name', 'erin']);
      const cases: [string[], RegExp][] = [
        [['--user', 'nobody', '--scopes', 'user.profile'], /no user named "nobody"/],
        [['--user', 'erin', '--scopes', 'user.profile admin'], /unknown scope "admin"/],
        [['--user', 'erin', '--scopes', ''], /no scopes/],
        [['--user', 'erin', '--scopes', 'user.profile', '--ttl', 'soon'], /--ttl/],
        [['--user', 'erin', '--scopes', 'user.profile', '--ttl', '999999999999'], /ttl/],
      ];
      const results = await Promise.all(
        cases.map(([args]) => runCli(['tokens', 'issue', ...args])),
      );
      results.forEach((result, i) => {
        expect(result.code).not.toBe(0);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(cases[i][1]);
      });
    });

    it('refuses to revoke a token that was never issued', async () => {
      const result = await runCli(['tokens', 'revoke', 'not-a-token']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/no such token/);
    });
  });

  describe('catalog import', () => {
    it('imports the example catalog once, then finds it unchanged', async () => {
      const total = (JSON.parse(readFileSync(EXAMPLE_CATALOG, 'utf8')) as unknown[]).length;
      const first = await runCli(['catalog', 'import', EXAMPLE_CATALOG]);
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ created: total, updated: 0, unchanged: 0 });
      const second = await runCli(['catalog', 'import', EXAMPLE_CATALOG]);
      expect(second.stdout).toBe(
        `${JSON.stringify({ created: 0, updated: 0, unchanged: total })}\n`,
      );
      expect(await titleRows()).toHaveLength(total);
    });

    it("updates titles in place and never touches users' entries", async () => {
      const file = join(workDir, 'catalog.json');
      const records: Record<string, unknown>[] = [
        {
          media_type: 'anime',
          id: 1,
          external_id: 5114,
          title: 'FMA',
          episodes: 64,
          episode_minutes: 24,
        },
        {
          media_type: 'anime',
          id: 2,
          external_id: 9253,
          title: 'Steins;Gate',
          episodes: 24,
          episode_minutes: 24,
        },
        {
          media_type: 'manga',
          id: 1,
          external_id: 2,
          title: 'Monster',
          chapters: 162,
          volumes: 18,
        },
      ];
      writeFileSync(file, JSON.stringify(records));
      expect(JSON.parse((await runCli(['catalog', 'import', file])).stdout)).toEqual({
        created: 3,
        updated: 0,
        unchanged: 0,
      });

      await runCli(['users', 'create', '--name', 'frank']);
      const token = (
        await runCli(['tokens', 'issue', '--user', 'frank', '--scopes', 'ratings.anime'])
      ).stdout.trim();
      await api(app, token)
        .put('/v1/my/anime/1/ratings', { status: 'completed', episodes_watched: 64 })
        .expect(200);

      records[0] = { ...records[0], title: 'Fullmetal Alchemist: Brotherhood' };
      records[1] = { ...records[1], external_id: 9999, episode_minutes: 25 };
      records.push({
        media_type: 'manga',
        id: 2,
        external_id: 1,
        title: 'Berserk',
        chapters: null,
        volumes: null,
      });
      writeFileSync(file, JSON.stringify(records));
      expect(JSON.parse((await runCli(['catalog', 'import', file])).stdout)).toEqual({
        created: 1,
        updated: 2,
        unchanged: 1,
      });

      const entries = await api(app, token).get('/v1/my/anime/ratings').expect(200);
      expect(entries.body).toHaveLength(1);
      expect(entries.body[0]).toMatchObject({
        id: 1,
        title: 'Fullmetal Alchemist: Brotherhood',
        episodes_watched: 64,
      });
      const rows = await titleRows();
      expect(rows.find((t) => t.mediaType === 'anime' && t.id === 2)).toMatchObject({
        externalId: 9999,
        episodeMinutes: 25,
      });
    });

    it('changes nothing and exits non-zero on a malformed file, naming the first bad record', async () => {
      await runCli(['catalog', 'import', EXAMPLE_CATALOG]);
      const before = await titleRows();
      const cases: [string, RegExp][] = [
        ['[{"media_type":"anime",', /not valid JSON/],
        ['{"media_type":"anime"}', /JSON array/],
        [
          JSON.stringify([
            { media_type: 'anime', id: 1, title: 'ok' },
            { media_type: 'anime', id: 2, title: 'bad', episodes: -1 },
          ]),
          /record 2 \(anime id 2\): episodes/,
        ],
        [
          JSON.stringify([
            { media_type: 'manga', id: 1, title: 'a' },
            { media_type: 'manga', id: 1, title: 'b' },
          ]),
          /record 2 \(manga id 1\): duplicate id 1/,
        ],
        [
          JSON.stringify([
            { media_type: 'anime', id: 1, external_id: 5, title: 'a' },
            { media_type: 'anime', id: 3, external_id: 5, title: 'b' },
          ]),
          /record 2 \(anime id 3\): duplicate external_id 5/,
        ],
      ];
      const results = await Promise.all(
        cases.map(([text], i) => {
          const file = join(workDir, `broken-${i}.json`);
          writeFileSync(file, text);
          return runCli(['catalog', 'import', file]);
        }),
      );
      results.forEach((result, i) => {
        expect(result.code).not.toBe(0);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(cases[i][1]);
      });
      expect(await titleRows()).toEqual(before);
    });

    it('refuses an external_id that another stored title holds, changing nothing', async () => {
      const file = join(workDir, 'clash.json');
      writeFileSync(
        file,
        JSON.stringify([{ media_type: 'anime', id: 1, external_id: 77, title: 'a' }]),
      );
      await runCli(['catalog', 'import', file]);
      writeFileSync(
        file,
        JSON.stringify([
          { media_type: 'anime', id: 2, title: 'b' },
          { media_type: 'anime', id: 3, external_id: 77, title: 'c' },
        ]),
      );
      const result = await runCli(['catalog', 'import', file]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(
        /record 2 \(anime id 3\): external_id 77 already belongs to anime id 1/,
      );
      expect(await titleRows()).toHaveLength(1);
    });
  });

  it('stops with a message naming every bad environment variable', async () => {
    const result = await runCli(['users', 'create', '--name', 'x'], {
      PORT: 'abc',
      RATE_LIMIT_IP_LIMIT: '-1',
      LOG_LEVEL: 'chatty',
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/PORT/);
    expect(result.stderr).toMatch(/RATE_LIMIT_IP_LIMIT/);
    expect(result.stderr).toMatch(/LOG_LEVEL/);
  });
});

describe('server (node dist/main.js)', () => {
  it('serves /health on a fresh SQLite file (folder created) and shuts down on SIGTERM', async () => {
    const dir = tempDir('ratings-server-');
    const port = await freePort();
    const { child, output } = startServer({
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dir, 'nested', 'db.sqlite')}`,
      LOG_LEVEL: 'info',
    });
    try {
      await serverIsLive(port, 10_000, '/health');
      // Structured JSON logs (pino): the ready line and the access line of the request above.
      expect(output()).toMatch(/"level":30,.*"context":"Server",.*"msg":"Ready on /);
      // The access line is written asynchronously, within a second (contract §16).
      for (let i = 0; i < 20 && !/"route":"\/health","status":200/.test(output()); i++) {
        await sleep(100);
      }
      expect(output()).toMatch(/"route":"\/health","status":200/);
    } finally {
      child.kill('SIGTERM');
    }
    // Nest closes the app (in-flight requests, the pool), then re-raises the signal.
    expect(await exitOf(child)).toEqual(expect.objectContaining({ signal: 'SIGTERM' }));
  });

  it('refuses to start with a bad environment, naming every bad variable', async () => {
    const { child, output } = startServer({
      PORT: '99999',
      UA_DENY_THRESHOLD: 'many',
      DATABASE_URL: 'oracle://x',
    });
    expect(await exitOf(child)).toEqual({ code: 1, signal: null });
    expect(output()).toMatch(/PORT/);
    expect(output()).toMatch(/UA_DENY_THRESHOLD/);
    expect(output()).toMatch(/DATABASE_URL/);
  });
});
