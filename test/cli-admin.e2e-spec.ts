import { ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountErasure } from '../src/accounts/account-erasure';
import { AccountsModule } from '../src/accounts/accounts.module';
import { ExternalIdentitiesService } from '../src/auth/external-identities.service';
import { ExternalIdentity } from '../src/auth/external-identity.entity';
import { TokensService } from '../src/auth/tokens.service';
import { ClientsService } from '../src/oauth/clients.service';
import { GrantsService } from '../src/oauth/grants.service';
import { RatingsService } from '../src/ratings/ratings.service';
import { UsersService } from '../src/users/users.service';
import { WebhooksService } from '../src/webhooks/webhooks.service';
import { anime, importTitles, manga } from './factories';
import { exitOf, freePort, runCli, runNode } from './utils/cli';
import { api, createTestApp, resetDatabase, USER_AGENT } from './utils/test-app';
import { serverIsLive } from './utils/wait';
import { tempDir, testRedisUrl } from './utils/test-services';

// Every CLI run starts a process of its own: slow on a busy machine.
jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');

describe('the default SQLite file (issue 17 item 9)', () => {
  it('is the same file for the server and the CLI, whatever folder they are started from', async () => {
    // An installed copy of the package (package.json, dist/, node_modules), so that the default
    // file lands in a temporary folder instead of this repository's data/.
    const base = tempDir('ratings-install-');
    const app = join(base, 'app');
    const elsewhere = join(base, 'elsewhere');
    const another = join(base, 'another');
    for (const dir of [app, elsewhere, another]) mkdirSync(dir);
    cpSync(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
    const cli = join(app, 'dist', 'cli.js');
    const defaultFile = join(app, 'data', 'ratings.sqlite');
    // DATABASE_URL empty is DATABASE_URL unset: the default file.
    const env = { DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'error' };
    let server: ChildProcess | undefined;
    try {
      const created = await runNode(cli, ['users', 'create', '--name', 'alice'], {
        cwd: elsewhere,
        env,
      });
      expect(created.code).toBe(0);
      // The first run says which file it creates, so that a wrong one does not go unnoticed.
      expect(created.stderr).toBe(`note: creating a new SQLite database at ${defaultFile}\n`);
      expect(existsSync(defaultFile)).toBe(true);
      expect(existsSync(join(elsewhere, 'data'))).toBe(false);

      const issued = await runNode(
        cli,
        ['tokens', 'issue', '--user', 'alice', '--scopes', 'user.profile'],
        { cwd: another, env },
      );
      expect(issued).toMatchObject({ code: 0, stderr: '' });
      const token = issued.stdout.trim();

      const port = await freePort();
      server = spawn(process.execPath, [join(app, 'dist', 'main.js')], {
        cwd: another,
        env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
        stdio: 'ignore',
      });
      await serverIsLive(port);
      const profile = await fetch(`http://127.0.0.1:${port}/v1/my/profile`, {
        headers: { 'User-Agent': USER_AGENT, Authorization: `Bearer ${token}` },
      });
      expect(profile.status).toBe(200);
      expect(await profile.json()).toMatchObject({ name: 'alice' });
      expect(existsSync(join(another, 'data'))).toBe(false);
    } finally {
      if (server) {
        server.kill('SIGTERM');
        await exitOf(server);
      }
    }
  });
  it('is not created by --help, --version or a usage error: only a command that runs opens it', async () => {
    const base = tempDir('ratings-install-');
    const app = join(base, 'app');
    const cwd = join(base, 'cwd');
    for (const dir of [app, cwd]) mkdirSync(dir);
    cpSync(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
    const cli = join(app, 'dist', 'cli.js');
    const env = { DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'error', HOME: base };
    const created = () =>
      [join(app, 'data'), join(cwd, 'data'), join(base, 'data')].filter((path) => existsSync(path));
    for (const [args, code] of [
      [['--help'], 0],
      [['--version'], 0],
      [['users'], 0],
      [['users', '--help'], 0],
      [['users', 'delete', '--help'], 0],
      [['users', 'nuke'], 1],
      [['users', 'list', 'bob'], 1],
      [['users', 'delete'], 1],
      [['users', 'export', '--name', 'alice', '--bogus'], 1],
      [['nope'], 1],
    ] as const) {
      const result = await runNode(cli, [...args], { cwd, env });
      expect([args, result.code]).toEqual([args, code]);
      expect([args, result.stderr]).not.toEqual([args, expect.stringContaining('note:')]);
      expect([args, created()]).toEqual([args, []]);
    }
    const listed = await runNode(cli, ['users', 'list'], { cwd, env });
    expect(listed).toMatchObject({ code: 0, stdout: '' });
    expect(created()).toEqual([join(app, 'data')]);
  });
});

const ISSUER = 'https://login.example.com/realms/staff';
const REDIRECT_URI = 'https://listsync.example/callback';
const ALL = 'ratings.anime ratings.manga user.profile';

const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('admin CLI: users, clients and tokens (issue 17 item 8)', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    // Webhook receivers on loopback: the test's own port 9 refuses, so events stay pending.
    app = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_LISTS: 'true' }, [
      AccountsModule,
    ]);
  });

  afterAll(async () => {
    await app.close();
  });

  beforeEach(async () => {
    await resetDatabase(app);
    await importTitles(app, [anime(1), anime(2), anime(3), manga(1)]);
  });

  const query = <T>(sql: string, parameters: unknown[] = []) =>
    app.get(DataSource).query<T[]>(sql, parameters);
  const countOf = async (table: string, where: string, parameters: unknown[]) =>
    Number(
      (
        await query<{ n: number | string }>(
          `SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`,
          parameters,
        )
      )[0].n,
    );
  const profileStatus = async (token: string) =>
    (await api(app, token).get('/v1/my/profile')).status;

  async function userWithToken(name: string, password?: string) {
    const user = await app.get(UsersService).create(name, password);
    const { token } = await app.get(TokensService).issue(name, ALL);
    return { user, token };
  }

  /** An authorization of `userId` for the client, as the consent page and token endpoint leave it. */
  async function authorize(userId: number, client: { id: number; clientId: string }) {
    const grants = app.get(GrantsService);
    const grantId = await grants.open(client.id, userId);
    const verifier = randomBytes(32).toString('base64url');
    const code = randomBytes(32).toString('base64url');
    await grants.saveCode({
      code,
      grantId,
      redirectUri: REDIRECT_URI,
      scopes: ['user.profile'],
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      codeChallengeMethod: 'S256',
      expiresAt: new Date(Date.now() + 600_000),
    });
    const accessToken = randomBytes(32).toString('base64url');
    const refreshToken = randomBytes(32).toString('base64url');
    await grants.saveTokens({
      grantId,
      userId,
      clientId: client.clientId,
      scopes: ['user.profile'],
      accessToken,
      accessTokenExpiresAt: new Date(Date.now() + 3_600_000),
      refreshToken,
      refreshTokenExpiresAt: new Date(Date.now() + 86_400_000),
    });
    return { code, verifier, accessToken, refreshToken };
  }

  /** The identity provider's pair (ISSUER, sub) signs in as this user. */
  async function linkIdentity(userId: number, subject: string) {
    await app.get(DataSource).getRepository(ExternalIdentity).insert({
      issuer: ISSUER,
      subject,
      userId,
      createdAt: new Date(),
      tokensRevokedBefore: null,
    });
  }

  async function registerClient(name: string) {
    const { client, secret } = await app
      .get(ClientsService)
      .create({ name, redirectUris: [REDIRECT_URI], isPublic: false });
    return { id: client.id, clientId: client.clientId, secret: secret! };
  }

  const tokenRequest = (form: Record<string, string>) =>
    request(app.getHttpServer())
      .post('/oauth/token')
      .type('form')
      .send(new URLSearchParams(form).toString());

  describe('users list', () => {
    it('prints every user, one JSON line each, by id', async () => {
      const alice = await app.get(UsersService).create('alice', 'correct horse battery');
      const bob = await app.get(UsersService).create('bob');
      const result = await runCli(['users', 'list']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(jsonLines(result.stdout)).toEqual([
        { id: alice.id, name: 'alice', joined_at: expect.stringMatching(/Z$/), has_password: true },
        { id: bob.id, name: 'bob', joined_at: expect.stringMatching(/Z$/), has_password: false },
      ]);
      const none = await runCli(['users', 'list', 'bob']);
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/too many arguments for 'list'/);
    });
  });

  describe('users delete', () => {
    it('erases the user at once: the token is refused, webhooks get rating.deleted for each entry, nothing of the user stays', async () => {
      await app.get(WebhooksService).create('http://127.0.0.1:9/hook');
      const alice = await userWithToken('alice');
      const bob = await userWithToken('bob');
      const as = (token: string) => api(app, token);
      for (const path of [
        '/v1/my/anime/1/ratings',
        '/v1/my/anime/2/ratings',
        '/v1/my/manga/1/ratings',
      ]) {
        expect(
          (await as(alice.token).put(path, { status: 'completed', notes: 'private' })).status,
        ).toBe(200);
      }
      expect((await as(alice.token).delete('/v1/my/anime/2/ratings')).status).toBe(200);
      expect(
        (await as(bob.token).put('/v1/my/anime/1/ratings', { status: 'ongoing' })).status,
      ).toBe(200);
      const client = await registerClient('ListSync');
      const oauth = await authorize(alice.user.id, client);
      const identities = app.get(ExternalIdentitiesService);
      await linkIdentity(alice.user.id, 'alice-sub');
      expect(await profileStatus(oauth.accessToken)).toBe(200);
      const bobEvents = await countOf('webhook_messages', 'user_id = ?', [bob.user.id]);
      expect(bobEvents).toBe(1);

      const result = await runCli(['users', 'delete', '--name', 'alice']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        deleted: 'alice',
        id: alice.user.id,
        entries: { anime: 1, manga: 1 },
      });

      // The very next requests: every kind of token of the user is refused.
      expect(await profileStatus(alice.token)).toBe(401);
      expect(await profileStatus(oauth.accessToken)).toBe(401);
      const refreshed = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: oauth.refreshToken,
        client_id: client.clientId,
        client_secret: client.secret,
      });
      expect(refreshed.body).toMatchObject({ error: 'invalid_grant' });
      // The pair stays blocked: its next token does not create the user again.
      expect(await identities.userFor(ISSUER, 'alice-sub', ['alice'])).toBeNull();
      expect(await query('SELECT issuer, subject FROM blocked_external_identities')).toEqual([
        { issuer: ISSUER, subject: 'alice-sub' },
      ]);

      // Undelivered events of the user are gone; one rating.deleted per entry the user had.
      const events = await query<{ event_type: string; body: string; state: string }>(
        'SELECT event_type, body, state FROM webhook_messages WHERE user_id = ? ORDER BY id',
        [alice.user.id],
      );
      expect(events.map((event) => [event.event_type, event.state])).toEqual([
        ['rating.deleted', 'pending'],
        ['rating.deleted', 'pending'],
      ]);
      const bodies = events.map(
        (event) => JSON.parse(event.body) as { data: Record<string, unknown> },
      );
      expect(bodies.map(({ data }) => [data.media_type, data.title_id, data.entry])).toEqual([
        ['anime', 1, null],
        ['manga', 1, null],
      ]);
      for (const { data } of bodies)
        expect(data.user).toEqual({ id: alice.user.id, name: 'alice' });

      for (const table of [
        'users WHERE id = ?',
        'rating_entries WHERE user_id = ?',
        'rating_revisions WHERE user_id = ?',
        'sync_deletions WHERE user_id = ?',
        'access_tokens WHERE user_id = ?',
        'oauth_grants WHERE user_id = ?',
        'external_identities WHERE user_id = ?',
      ]) {
        const [name, where] = table.split(' WHERE ');
        expect([table, await countOf(name, where, [alice.user.id])]).toEqual([table, 0]);
      }
      expect(await countOf('oauth_authorization_codes', '1 = 1', [])).toBe(0);
      expect(await countOf('oauth_refresh_tokens', '1 = 1', [])).toBe(0);

      // Bob is untouched.
      expect(await profileStatus(bob.token)).toBe(200);
      expect((await as(bob.token).get('/v1/my/anime/ratings')).body).toHaveLength(1);
      expect(await countOf('webhook_messages', 'user_id = ?', [bob.user.id])).toBe(bobEvents);
      expect(await countOf('oauth_clients', '1 = 1', [])).toBe(1);
    });

    it('also erases the entries written after it looked the user up, before its transaction: no foreign-key failure, none left', async () => {
      await app.get(WebhooksService).create('http://127.0.0.1:9/hook');
      const alice = await userWithToken('alice');
      const as = api(app, alice.token);
      expect((await as.put('/v1/my/anime/1/ratings', { status: 'completed' })).status).toBe(200);
      const ratings = app.get(RatingsService);
      const inWriteTransaction = ratings.inWriteTransaction.bind(ratings);
      // The erasure's own transaction opens only once these writes (each through the write path,
      // each its own transaction) have committed: whatever it read before must not be all it erases.
      const written = jest
        .spyOn(ratings, 'inWriteTransaction')
        .mockImplementationOnce(async (work) => {
          for (const path of ['/v1/my/anime/2/ratings', '/v1/my/manga/1/ratings']) {
            expect((await as.put(path, { status: 'ongoing' })).status).toBe(200);
          }
          return inWriteTransaction(work);
        });
      try {
        expect(await app.get(AccountErasure).erase('alice')).toEqual({
          deleted: 'alice',
          id: alice.user.id,
          entries: { anime: 2, manga: 1 },
        });
      } finally {
        written.mockRestore();
      }
      expect(await countOf('rating_entries', 'user_id = ?', [alice.user.id])).toBe(0);
      expect(await countOf('users', 'id = ?', [alice.user.id])).toBe(0);
      const events = await query<{ event_type: string; body: string }>(
        'SELECT event_type, body FROM webhook_messages WHERE user_id = ? ORDER BY id',
        [alice.user.id],
      );
      expect(
        events.map((event) => {
          const { data } = JSON.parse(event.body) as { data: Record<string, unknown> };
          return [event.event_type, data.media_type, data.title_id];
        }),
      ).toEqual([
        ['rating.deleted', 'anime', 1],
        ['rating.deleted', 'anime', 2],
        ['rating.deleted', 'manga', 1],
      ]);
    });

    it("never serves the erased user's lists again, cached bodies included, nor to a new user of that name", async () => {
      const alice = await userWithToken('alice');
      const bob = await userWithToken('bob');
      await api(app, alice.token).put('/v1/my/anime/1/ratings', {
        status: 'completed',
        is_visible: true,
      });
      const read = (token: string, path: string, tag?: string) => {
        const call = api(app, token).get(path);
        return tag ? call.set('If-None-Match', tag) : call;
      };
      const publicList = '/v1/users/alice/anime/ratings';
      // Read twice: the second answer comes from the body cache.
      const reads = [
        [bob.token, publicList],
        [alice.token, '/v1/my/anime/ratings'],
        [alice.token, '/v1/my/profile'],
      ] as const;
      const tags: string[] = [];
      for (const [token, path] of reads) {
        const first = await read(token, path);
        const again = await read(token, path);
        expect([path, first.status, again.status]).toEqual([path, 200, 200]);
        expect(again.headers.etag).toBe(first.headers.etag);
        expect((await read(token, path, first.headers.etag)).status).toBe(304);
        tags.push(first.headers.etag);
      }

      expect((await runCli(['users', 'delete', '--name', 'alice'])).code).toBe(0);
      for (const [index, [token, path]] of reads.entries()) {
        const status = token === bob.token ? 404 : 401;
        expect([path, (await read(token, path)).status]).toEqual([path, status]);
        expect([path, (await read(token, path, tags[index])).status]).toEqual([path, status]);
      }

      // A new alice (on SQLite it may get the erased user's id back) starts from other tags.
      const again = await userWithToken('alice');
      const listed = await read(bob.token, publicList, tags[0]);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([]);
      expect(listed.headers.etag).not.toBe(tags[0]);
      const own = await read(again.token, '/v1/my/anime/ratings', tags[1]);
      expect([own.status, own.body]).toEqual([200, []]);
    });

    it('refuses an unknown name (compared exactly), changing nothing', async () => {
      const alice = await userWithToken('alice');
      for (const name of ['nobody', 'ALICE', 'alice ']) {
        const result = await runCli(['users', 'delete', '--name', name]);
        expect(result.code).toBe(1);
        expect(result.stderr).toBe(`error: no user named "${name}"\n`);
        expect(result.stdout).toBe('');
      }
      expect(await profileStatus(alice.token)).toBe(200);
      const missing = await runCli(['users', 'delete']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/required option '--name <name>' not specified/);
    });
  });

  describe('users export', () => {
    it("prints the user's whole data as one JSON document, lists and profile as the API shows them", async () => {
      const alice = await userWithToken('alice');
      await userWithToken('bob');
      const as = api(app, alice.token);
      await as.put('/v1/my/anime/1/ratings', {
        status: 'completed',
        public_rating: 8,
        notes: 'mine',
      });
      await as.put('/v1/my/anime/3/ratings', { status: 'ongoing', episodes_watched: 3 });
      await as.put('/v1/my/manga/1/ratings', { status: 'ongoing', chapters_read: 12 });
      const client = await registerClient('ListSync');
      await authorize(alice.user.id, client);
      await registerClient('Unused');
      await linkIdentity(alice.user.id, 'alice-sub');

      const result = await runCli(['users', 'export', '--name', 'alice']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.endsWith('\n')).toBe(true);
      const exported = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(Object.keys(exported)).toEqual([
        'user',
        'anime',
        'manga',
        'anime_history',
        'manga_history',
        'anime_viewings',
        'manga_viewings',
        'profile',
        'authorized_clients',
        'scrobblers',
        'scrobble_mappings',
        'unmatched_scrobbles',
      ]);
      const profile = (await as.get('/v1/my/profile')).body as { joined_at: string };
      expect(exported.user).toEqual({
        id: alice.user.id,
        name: 'alice',
        joined_at: profile.joined_at,
        identity_provider: [{ iss: ISSUER, sub: 'alice-sub' }],
      });
      expect(exported.anime).toEqual((await as.get('/v1/my/anime/ratings')).body);
      expect(exported.manga).toEqual((await as.get('/v1/my/manga/ratings')).body);
      expect(exported.anime).toHaveLength(2);
      expect(exported.profile).toEqual(profile);
      expect(exported.authorized_clients).toEqual([
        {
          client_id: client.clientId,
          name: 'ListSync',
          first_authorized_at: expect.stringMatching(/Z$/),
          last_authorized_at: expect.stringMatching(/Z$/),
          active: true,
        },
      ]);

      const unknown = await runCli(['users', 'export', '--name', 'nobody']);
      expect(unknown).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'error: no user named "nobody"\n',
      });
    });

    it('--output FILE writes the same document to FILE, owner-only (0600), replacing it whole', async () => {
      const alice = await userWithToken('alice');
      await api(app, alice.token).put('/v1/my/anime/1/ratings', { status: 'completed' });
      const printed = await runCli(['users', 'export', '--name', 'alice']);
      expect(printed).toMatchObject({ code: 0, stderr: '' });
      const dir = tempDir('ratings-export-');
      const file = join(dir, 'alice.json');
      writeFileSync(file, 'an older export', { mode: 0o644 });
      chmodSync(file, 0o644);
      const written = await runCli(['users', 'export', '--name', 'alice', '--output', file]);
      expect(written).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(readFileSync(file, 'utf8')).toBe(printed.stdout);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['alice.json']);

      const fresh = join(dir, 'fresh.json');
      const exported = await runCli(['users', 'export', '--name', 'alice', '--output', fresh]);
      expect(exported.code).toBe(0);
      expect(statSync(fresh).mode & 0o777).toBe(0o600);

      const nowhere = join(dir, 'missing', 'alice.json');
      const failed = await runCli(['users', 'export', '--name', 'alice', '--output', nowhere]);
      expect(failed).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `error: cannot write ${nowhere} (ENOENT)\n`,
      });
      const unknown = await runCli(['users', 'export', '--name', 'nobody', '--output', fresh]);
      expect(unknown).toMatchObject({ code: 1, stderr: 'error: no user named "nobody"\n' });
      expect(readFileSync(fresh, 'utf8')).toBe(printed.stdout);
      expect(readdirSync(dir).sort()).toEqual(['alice.json', 'fresh.json']);
      const empty = await runCli(['users', 'export', '--name', 'alice', '--output', '']);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toMatch(/--output needs a file name/);
    });
  });

  describe('clients list, delete, rotate-secret', () => {
    it('lists clients without secrets; delete takes its tokens, codes and grants with it at once', async () => {
      const alice = await userWithToken('alice');
      const doomed = await registerClient('Doomed');
      const kept = await registerClient('Kept');
      const { clientId: publicId } = (
        await app
          .get(ClientsService)
          .create({ name: 'Mobile', redirectUris: [REDIRECT_URI], isPublic: true })
      ).client;
      const lost = await authorize(alice.user.id, doomed);
      const other = await authorize(alice.user.id, kept);

      const listed = await runCli(['clients', 'list']);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(jsonLines(listed.stdout)).toEqual([
        {
          client_id: doomed.clientId,
          name: 'Doomed',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'client_secret_basic',
          created_at: expect.stringMatching(/Z$/),
        },
        expect.objectContaining({ client_id: kept.clientId, name: 'Kept' }),
        expect.objectContaining({ client_id: publicId, token_endpoint_auth_method: 'none' }),
      ]);
      expect(listed.stdout).not.toContain(doomed.secret);

      expect(await profileStatus(lost.accessToken)).toBe(200);
      const deleted = await runCli(['clients', 'delete', doomed.clientId]);
      expect(deleted).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(deleted.stdout)).toEqual({ deleted: doomed.clientId });
      expect(await profileStatus(lost.accessToken)).toBe(401);
      const refreshed = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: lost.refreshToken,
        client_id: doomed.clientId,
        client_secret: doomed.secret,
      });
      expect(refreshed.status).toBe(401);
      expect(refreshed.body).toMatchObject({ error: 'invalid_client' });
      expect(await countOf('oauth_grants', 'oauth_client_id = ?', [doomed.id])).toBe(0);
      expect(await countOf('access_tokens', 'client_id = ?', [doomed.clientId])).toBe(0);
      // The other client's authorization and the user's own token are untouched.
      expect(await profileStatus(other.accessToken)).toBe(200);
      expect(await profileStatus(alice.token)).toBe(200);
      expect(await countOf('oauth_refresh_tokens', '1 = 1', [])).toBe(1);
      expect(await countOf('oauth_authorization_codes', '1 = 1', [])).toBe(1);

      const unknown = await runCli(['clients', 'delete', doomed.clientId]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toBe(`error: no client with client_id "${doomed.clientId}"\n`);
    });

    it('rotate-secret prints a new secret: the old one stops working, issued tokens keep working', async () => {
      const alice = await userWithToken('alice');
      const client = await registerClient('ListSync');
      const issued = await authorize(alice.user.id, client);
      const introspect = (secret: string) =>
        request(app.getHttpServer())
          .post('/oauth/introspect')
          .auth(client.clientId, secret)
          .type('form')
          .send(`token=${issued.accessToken}`);
      expect((await introspect(client.secret)).body).toMatchObject({ active: true });

      const result = await runCli(['clients', 'rotate-secret', client.clientId]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      const rotated = JSON.parse(result.stdout) as { client_id: string; client_secret: string };
      expect(Object.keys(rotated)).toEqual(['client_id', 'client_secret']);
      expect(rotated.client_id).toBe(client.clientId);
      expect(rotated.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(rotated.client_secret).not.toBe(client.secret);

      expect((await introspect(client.secret)).status).toBe(401);
      expect((await introspect(rotated.client_secret)).body).toMatchObject({ active: true });
      expect(await profileStatus(issued.accessToken)).toBe(200);
      const refreshed = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: issued.refreshToken,
        client_id: client.clientId,
        client_secret: rotated.client_secret,
      });
      expect(refreshed.status).toBe(200);

      const { clientId: publicId } = (
        await app
          .get(ClientsService)
          .create({ name: 'Mobile', redirectUris: [REDIRECT_URI], isPublic: true })
      ).client;
      const refused = await runCli(['clients', 'rotate-secret', publicId]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/public client: it has no secret/);
      const unknown = await runCli(['clients', 'rotate-secret', 'nope']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/no client with client_id "nope"/);
    });
  });

  describe('tokens list and revoke --user', () => {
    it("lists a user's tokens without their secrets; revoke --user refuses every one from the next request on", async () => {
      const alice = await userWithToken('alice');
      const bob = await userWithToken('bob');
      const client = await registerClient('ListSync');
      const oauth = await authorize(alice.user.id, client);

      const listed = await runCli(['tokens', 'list', '--user', 'alice']);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      const lines = jsonLines(listed.stdout);
      expect(lines).toEqual([
        {
          type: 'access_token',
          id: expect.any(Number),
          client_id: null,
          scopes: ALL,
          issued_at: expect.stringMatching(/Z$/),
          expires_at: expect.stringMatching(/Z$/),
          status: 'active',
        },
        expect.objectContaining({
          type: 'access_token',
          client_id: client.clientId,
          status: 'active',
        }),
        expect.objectContaining({
          type: 'refresh_token',
          client_id: client.clientId,
          status: 'active',
        }),
      ]);
      for (const secret of [alice.token, oauth.accessToken, oauth.refreshToken, oauth.code]) {
        expect(listed.stdout).not.toContain(secret);
        expect(listed.stdout).not.toContain(createHash('sha256').update(secret).digest('hex'));
      }

      const revoked = await runCli(['tokens', 'revoke', '--user', 'alice']);
      expect(revoked).toMatchObject({ code: 0, stderr: '' });
      expect(revoked.stdout).toBe(
        'revoked 2 access token(s) and 1 authorization(s) with their refresh tokens and codes\n',
      );
      expect(await profileStatus(alice.token)).toBe(401);
      expect(await profileStatus(oauth.accessToken)).toBe(401);
      const refreshed = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: oauth.refreshToken,
        client_id: client.clientId,
        client_secret: client.secret,
      });
      expect(refreshed.body).toMatchObject({ error: 'invalid_grant' });
      // The pending authorization code is refused too.
      const exchanged = await tokenRequest({
        grant_type: 'authorization_code',
        code: oauth.code,
        redirect_uri: REDIRECT_URI,
        code_verifier: oauth.verifier,
        client_id: client.clientId,
        client_secret: client.secret,
      });
      expect(exchanged.body).toMatchObject({ error: 'invalid_grant' });
      expect(await profileStatus(bob.token)).toBe(200);

      const after = jsonLines((await runCli(['tokens', 'list', '--user', 'alice'])).stdout);
      expect(after.map((line) => line.status)).toEqual(['revoked', 'revoked', 'revoked']);

      for (const args of [
        ['tokens', 'list', '--user', 'nobody'],
        ['tokens', 'revoke', '--user', 'nobody'],
      ]) {
        const unknown = await runCli(args);
        expect(unknown).toMatchObject({
          code: 1,
          stdout: '',
          stderr: 'error: no user named "nobody"\n',
        });
      }
      const missing = await runCli(['tokens', 'list']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/required option '--user <name>' not specified/);
    });
  });
});

describe('users set-password on a terminal (issue 17 item 7)', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  beforeEach(async () => {
    await resetDatabase(app);
  });

  /**
   * Runs the CLI on a pseudo-terminal (util-linux `script`), typing each answer once its prompt
   * shows: what a person at the terminal sees is the transcript.
   */
  function onTerminal(args: string[], answers: { after: RegExp; type: string }[]) {
    const command = [process.execPath, join(ROOT, 'dist', 'cli.js'), ...args]
      .map((word) => `'${word.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: process.env.E2E_DATABASE_URL },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let transcript = '';
    const pending = [...answers];
    const onOutput = (chunk: Buffer) => {
      transcript += chunk.toString();
      while (pending.length > 0 && pending[0].after.test(transcript)) {
        child.stdin.write(pending.shift()!.type);
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    return exitOf(child).then(({ code }) => {
      child.stdin.end();
      return { code, transcript };
    });
  }

  it('asks twice without echoing, then sets the password', async () => {
    await app.get(UsersService).create('alice');
    const { code, transcript } = await onTerminal(
      ['users', 'set-password', '--name', 'alice'],
      [
        { after: /New password \(8 to 1024 characters\):/, type: 'typed secret 1\r' },
        { after: /The same password again:/, type: 'typed secret 1\r' },
      ],
    );
    expect(transcript).toContain('password set');
    expect(transcript).not.toContain('typed secret');
    expect(code).toBe(0);
    expect(await app.get(UsersService).verifyCredentials('alice', 'typed secret 1')).not.toBeNull();
  });

  it('changes nothing when the two answers differ, and asks nothing for an unknown user', async () => {
    await app.get(UsersService).create('alice', 'the old password');
    const differ = await onTerminal(
      ['users', 'set-password', '--name', 'alice'],
      [
        { after: /New password/, type: 'first answer\r' },
        { after: /The same password again:/, type: 'second answer\r' },
      ],
    );
    expect(differ.code).toBe(1);
    expect(differ.transcript).toContain('error: the two passwords differ; nothing was changed');
    expect(differ.transcript).not.toMatch(/first answer|second answer/);
    expect(
      await app.get(UsersService).verifyCredentials('alice', 'the old password'),
    ).not.toBeNull();

    const unknown = await onTerminal(['users', 'set-password', '--name', 'nobody'], []);
    expect(unknown.code).toBe(1);
    expect(unknown.transcript).toContain('error: no user named "nobody"');
    expect(unknown.transcript).not.toContain('New password');
  });
});

describe.each([
  ['in memory', {}],
  [
    'in Redis',
    { REDIS_URL: testRedisUrl(), REDIS_KEY_PREFIX: `cli-admin-${process.pid}-${Date.now()}:` },
  ],
])('IP denials and the sign-in throttle, counters %s (issue 17 item 6)', (_where, env) => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp({ ...env, UA_DENY_THRESHOLD: '2', TRUST_PROXY: 'loopback' });
  });

  afterAll(async () => {
    await app.close();
  });

  beforeEach(async () => {
    await resetDatabase(app);
  });

  // Each test its own addresses: the counters outlive the tables.
  let sequence = 0;
  const offset = 'REDIS_URL' in env ? 100 : 0;
  const nextAddress = () => `203.0.113.${++sequence + offset}`;

  const profileFrom = (address: string, token: string, userAgent = USER_AGENT) =>
    request(app.getHttpServer())
      .get('/v1/my/profile')
      .set('X-Forwarded-For', address)
      .set('User-Agent', userAgent)
      .set('Authorization', `Bearer ${token}`);

  it('denials list shows a denial; denials lift ends it from the next request on, its past rejections forgotten', async () => {
    await app.get(UsersService).create('alice');
    const { token } = await app.get(TokensService).issue('alice', ALL);
    const address = nextAddress();
    const other = nextAddress();

    const first = await profileFrom(address, token, 'curl/8.4.0');
    expect(first.status).toBe(403);
    expect(first.body.detail).toContain(
      'After 1 more rejected request from this address within 600 seconds, it is denied every request for 900 seconds.',
    );
    const second = await profileFrom(address, token, 'curl/8.4.0');
    expect(second.body.detail).toContain(
      'this address is now denied every request for 900 seconds',
    );
    const denied = await profileFrom(address, token);
    expect(denied.status).toBe(403);
    expect(Number(denied.headers['retry-after'])).toBeGreaterThan(890);
    await profileFrom(other, token, 'curl/8.4.0');
    await profileFrom(other, token, 'curl/8.4.0');

    const listed = await runCli(['denials', 'list']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const lines = jsonLines(listed.stdout);
    expect(lines).toEqual([
      { address, denied_at: expect.stringMatching(/Z$/), until: expect.stringMatching(/Z$/) },
      expect.objectContaining({ address: other }),
    ]);
    const lasts = Date.parse(lines[0].until as string) - Date.parse(lines[0].denied_at as string);
    expect(lasts).toBeGreaterThanOrEqual(900_000);
    expect(lasts).toBeLessThanOrEqual(901_000);

    const lifted = await runCli(['denials', 'lift', '--ip', address]);
    expect(lifted).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(lifted.stdout)).toEqual({ lifted: address });
    expect((await profileFrom(address, token)).status).toBe(200);
    // Its rejections start from zero again; the other address stays denied.
    const again = await profileFrom(address, token, 'curl/8.4.0');
    expect(again.body.detail).toContain('After 1 more rejected request from this address');
    expect((await profileFrom(other, token)).status).toBe(403);
    expect(jsonLines((await runCli(['denials', 'list'])).stdout)).toEqual([
      expect.objectContaining({ address: other }),
    ]);

    const notDenied = await runCli(['denials', 'lift', '--ip', address]);
    expect(notDenied).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: no denial of ${address} is in force (see denials list)\n`,
    });
    const notAnAddress = await runCli(['denials', 'lift', '--ip', 'example.com']);
    expect(notAnAddress.code).toBe(1);
    expect(notAnAddress.stderr).toMatch(/--ip must be an IPv4 or IPv6 address, got "example.com"/);
  });

  it('users reset-sign-in lets a throttled account sign in again at once', async () => {
    const password = 'correct horse battery';
    await app.get(UsersService).create('carol', password);
    const { client } = await app
      .get(ClientsService)
      .create({ name: 'ListSync', redirectUris: [REDIRECT_URI], isPublic: true });
    const verifier = randomBytes(32).toString('base64url');
    const authorizeUrl = `/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'user.profile',
      state: 'state-1',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString()}`;
    /** The consent page, then its form sent with the password: the status of the answer. */
    const signIn = async (attempt: string, address = nextAddress(), username = 'carol') => {
      const page = await request(app.getHttpServer())
        .get(authorizeUrl)
        .set('X-Forwarded-For', address);
      expect(page.status).toBe(200);
      const form = new URLSearchParams();
      for (const [, name, value] of page.text.matchAll(
        /<input type="hidden" name="([^"]+)" value="([^"]*)">/g,
      )) {
        form.append(
          name,
          value.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))),
        );
      }
      form.append('grant', 'user.profile');
      form.append('username', username);
      form.append('password', attempt);
      form.append('decision', 'approve');
      const cookie = (page.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      const answer = await request(app.getHttpServer())
        .post('/oauth/authorize')
        .set('X-Forwarded-For', address)
        .set('Cookie', cookie)
        .type('form')
        .send(form.toString());
      return answer.status;
    };

    for (let i = 0; i < 5; i++) expect(await signIn('wrong password')).not.toBe(303);
    expect(await signIn(password)).toBe(429);

    const reset = await runCli(['users', 'reset-sign-in', '--name', 'carol']);
    expect(reset).toMatchObject({ code: 0, stderr: '', stdout: 'sign-in throttle reset\n' });
    expect(await signIn(password)).toBe(303);

    const unknown = await runCli(['users', 'reset-sign-in', '--name', 'nobody']);
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: no user named "nobody"\n' });

    // The user's own address, past its limit (attempts on other accounts): after the reset it may
    // sign in as carol again at once; other accounts from there stay refused until its window ends.
    const home = nextAddress();
    for (let i = 0; i < 5; i++) expect(await signIn('wrong password', home)).not.toBe(303);
    for (let i = 0; i < 15; i++) {
      expect(await signIn('wrong password', home, `someone${i}`)).not.toBe(303);
    }
    expect(await signIn(password, home)).toBe(429);
    expect(await signIn(password, nextAddress())).toBe(429);
    expect((await runCli(['users', 'reset-sign-in', '--name', 'carol'])).code).toBe(0);
    expect(await signIn(password, home)).toBe(303);
    expect(await signIn('wrong password', home, 'someone-else')).toBe(429);
  });
});
