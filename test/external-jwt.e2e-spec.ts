import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { exportJWK, generateKeyPair, JWK, KeyLike, SignJWT } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ExternalIdentitiesService } from '../src/auth/external-identities.service';
import { TokensService } from '../src/auth/tokens.service';
import { createUser, createUserWithToken } from './factories';
import { runCli } from './utils/cli';
import { api, createTestApp, resetDatabase, USER_AGENT } from './utils/test-app';

/**
 * Contract §19: JWT access tokens of the company's identity provider beside the opaque ones.
 * The provider is played by this spec: a local HTTP server publishes its JWKS, jose signs tokens.
 */

const ISSUER = 'https://login.example.test/realms/staff';
const AUDIENCE = 'ratings-api';

interface SigningKey {
  kid: string;
  privateKey: KeyLike;
  jwk: JWK;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return {
    kid,
    privateKey,
    jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
  };
}

/** The provider's JWKS endpoint: serves `keys`, counts how often it is fetched. */
class JwksServer {
  keys: SigningKey[] = [];
  fetches = 0;
  private readonly server: Server = createServer((_request, response) => {
    this.fetches += 1;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: this.keys.map((key) => key.jwk) }));
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/certs`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let subjects = 0;
const newSubject = () => `f3c1e2a0-${Date.now()}-${++subjects}`;

interface TokenOptions {
  sub?: string;
  key?: SigningKey;
  issuer?: string;
  audience?: string | string[];
  /** Seconds from now. */
  expiresIn?: number;
  issuedAt?: number;
  claims?: Record<string, unknown>;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function signer(defaultKey: () => SigningKey) {
  return (options: TokenOptions = {}): Promise<string> => {
    const key = options.key ?? defaultKey();
    return new SignJWT({ scope: 'ratings.anime ratings.manga user.profile', ...options.claims })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setSubject(options.sub ?? newSubject())
      .setIssuedAt(options.issuedAt ?? nowSeconds())
      .setExpirationTime(nowSeconds() + (options.expiresIn ?? 300))
      .sign(key.privateKey);
  };
}

function expectInvalidToken(response: request.Response): void {
  expect(response.status).toBe(401);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(response.headers['www-authenticate']).toBe(
    'Bearer realm="ratings", error="invalid_token"',
  );
}

describe('access tokens from the company identity provider (contract §19)', () => {
  const jwks = new JwksServer();
  let env: Record<string, string>;
  let app: NestFastifyApplication;
  let current: SigningKey;
  const sign = signer(() => current);

  const profile = (token: string) => api(app, token).get('/v1/my/profile');

  beforeAll(async () => {
    current = await newKey('key-1');
    jwks.keys = [current];
    env = {
      AUTH_JWT_ISSUER: ISSUER,
      AUTH_JWT_JWKS_URL: await jwks.start(),
      AUTH_JWT_AUDIENCE: AUDIENCE,
    };
    app = await createTestApp(env);
    await resetDatabase(app);
  });

  afterAll(async () => {
    await app.close();
    await jwks.stop();
  });

  it('a valid token is accepted and creates its user, named preferred_username, once', async () => {
    const sub = newSubject();
    const first = await profile(
      await sign({ sub, claims: { preferred_username: 'jane.doe', name: 'Jane Doe' } }),
    );
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ name: 'jane.doe' });

    // The next token of the pair is the same user, whatever name it now carries.
    const again = await profile(await sign({ sub, claims: { preferred_username: 'jd' } }));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, name: 'jane.doe' });
  });

  it('names the user from name, else sub, when preferred_username is absent', async () => {
    const byName = await profile(await sign({ claims: { name: 'Rin Tohsaka' } }));
    expect(byName.body).toMatchObject({ name: 'Rin Tohsaka' });
    const sub = newSubject();
    const bySub = await profile(await sign({ sub }));
    expect(bySub.body).toMatchObject({ name: sub });
  });

  it('a taken name gets a numeric suffix; a user is the pair (iss, sub), never the name', async () => {
    await createUser(app, 'alice');
    const second = await profile(await sign({ claims: { preferred_username: 'alice' } }));
    expect(second.body).toMatchObject({ name: 'alice-2' });
    const third = await profile(await sign({ claims: { preferred_username: 'alice' } }));
    expect(third.body).toMatchObject({ name: 'alice-3' });
    expect(third.body.id).not.toBe(second.body.id);
  });

  it('the same sub from another issuer is another user (and that issuer is not trusted)', async () => {
    const sub = newSubject();
    expect((await profile(await sign({ sub }))).status).toBe(200);
    expectInvalidToken(await profile(await sign({ sub, issuer: 'https://evil.example.test' })));
  });

  it.each<[string, TokenOptions]>([
    ['expired beyond the leeway', { expiresIn: -120 }],
    ['for another audience', { audience: 'another-api' }],
    ['from another issuer', { issuer: `${ISSUER}/other` }],
    ['not yet valid beyond the leeway', { claims: { nbf: nowSeconds() + 300 } }],
  ])('a token %s is 401 invalid_token', async (_case, options) => {
    expectInvalidToken(await profile(await sign(options)));
  });

  it('a token just past exp, within the leeway, is accepted', async () => {
    expect((await profile(await sign({ expiresIn: -5 }))).status).toBe(200);
  });

  it('a token signed by a key the JWKS does not publish is 401 invalid_token', async () => {
    const stranger = await newKey('key-unknown');
    expectInvalidToken(await profile(await sign({ key: stranger })));
    // A tampered signature as well.
    const token = await sign();
    expectInvalidToken(await profile(`${token.slice(0, -4)}AAAA`));
  });

  it('scopes come from scope, or from scp as an array or a string', async () => {
    const animeOnly = await sign({ claims: { scope: 'ratings.anime' } });
    expect((await api(app, animeOnly).get('/v1/my/anime/ratings')).status).toBe(200);
    const missing = await api(app, animeOnly).get('/v1/my/manga/ratings');
    expect(missing.status).toBe(403);
    expect(missing.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="ratings.manga"',
    );

    const scpArray = await sign({ claims: { scope: undefined, scp: ['ratings.manga'] } });
    expect((await api(app, scpArray).get('/v1/my/manga/ratings')).status).toBe(200);
    expect((await api(app, scpArray).get('/v1/my/anime/ratings')).status).toBe(403);

    const scpString = await sign({
      claims: { scope: undefined, scp: 'user.profile ratings.anime' },
    });
    expect((await profile(scpString)).status).toBe(200);
    expect((await api(app, scpString).get('/v1/my/manga/ratings')).status).toBe(403);

    const none = await sign({ claims: { scope: undefined } });
    expect((await profile(none)).status).toBe(403);
  });

  it('opaque tokens of this service are still accepted beside JWTs', async () => {
    const { token } = await createUserWithToken(app);
    expect((await profile(token)).status).toBe(200);
    expectInvalidToken(await profile('not-a-token'));
  });

  it('tokens revoke --user refuses the JWTs issued before it, and not later ones', async () => {
    const sub = newSubject();
    const early = await sign({ sub, claims: { preferred_username: 'revoked-user' } });
    const created = await profile(early);
    expect(created.status).toBe(200);
    const name = created.body.name as string;
    const { token: opaque } = await app.get(TokensService).issue(name, 'user.profile');
    expect((await profile(opaque)).status).toBe(200);

    const result = await runCli(['tokens', 'revoke', '--user', name]);
    expect(result).toMatchObject({ code: 0 });
    expectInvalidToken(await profile(early));
    expectInvalidToken(await profile(opaque));
    // Issued before the revocation, still within its lifetime.
    expectInvalidToken(await profile(await sign({ sub, issuedAt: nowSeconds() - 60 })));

    // A token issued after it (iat is whole seconds: the next second at the latest) is accepted.
    const later = await sign({ sub, issuedAt: Math.ceil(Date.now() / 1000) + 1 });
    const accepted = await profile(later);
    expect(accepted.status).toBe(200);
    expect(accepted.body.id).toBe(created.body.id);
  });

  it('a deleted user stays blocked until users unblock; the next token then creates a new user', async () => {
    const sub = newSubject();
    const token = await sign({ sub, claims: { preferred_username: 'leaver' } });
    const created = await profile(token);
    expect(created.status).toBe(200);

    // What `users delete` does: block the pairs, then delete the user.
    await app.get(ExternalIdentitiesService).blockUser(created.body.id as number);
    await app.get(DataSource).query('DELETE FROM users WHERE id = ?', [created.body.id]);

    expectInvalidToken(await profile(token));
    expectInvalidToken(await profile(await sign({ sub })));

    const unblock = await runCli(['users', 'unblock', '--iss', ISSUER, '--sub', sub]);
    expect(unblock).toMatchObject({ code: 0, stdout: 'unblocked\n' });
    const again = await profile(await sign({ sub, claims: { preferred_username: 'leaver' } }));
    expect(again.status).toBe(200);
    expect(again.body.id).not.toBe(created.body.id);

    const notBlocked = await runCli(['users', 'unblock', '--iss', ISSUER, '--sub', sub]);
    expect(notBlocked.code).toBe(1);
    expect(notBlocked.stderr).toMatch(/not blocked/);
  });

  it('two instances seeing a new pair at once create one user', async () => {
    const other = await createTestApp(env);
    try {
      const sub = newSubject();
      const tokens = await Promise.all(
        Array.from({ length: 8 }, () => sign({ sub, claims: { preferred_username: 'racer' } })),
      );
      const responses = await Promise.all(
        tokens.map((token, i) => api(i % 2 === 0 ? app : other, token).get('/v1/my/profile')),
      );
      expect(responses.map((response) => response.status)).toEqual(tokens.map(() => 200));
      expect(new Set(responses.map((response) => response.body.id as number)).size).toBe(1);
      const dataSource = app.get(DataSource);
      const pairs = await dataSource.query<unknown[]>(
        'SELECT user_id FROM external_identities WHERE subject = ?',
        [sub],
      );
      expect(pairs).toHaveLength(1);
      const racers = await dataSource.query<{ name: string }[]>(
        "SELECT name FROM users WHERE name LIKE 'racer%'",
      );
      expect(racers.map((row) => row.name)).toEqual(['racer']);
    } finally {
      await other.close();
    }
  });

  describe('key rotation', () => {
    afterEach(() => {
      jest.useRealTimers();
    });

    it('a new kid is fetched at most once a minute, then accepted', async () => {
      // Only Date is faked, so that a minute can pass without waiting for it.
      jest.useFakeTimers({
        doNotFake: [
          'hrtime',
          'nextTick',
          'performance',
          'queueMicrotask',
          'setImmediate',
          'clearImmediate',
          'setInterval',
          'clearInterval',
          'setTimeout',
          'clearTimeout',
        ],
        now: Date.now(),
        advanceTimers: true,
      });
      const rotating = await createTestApp(env);
      try {
        expect((await api(rotating, await sign()).get('/v1/my/profile')).status).toBe(200);
        const fetches = jwks.fetches;

        // The provider rotates: the new key is published and signs from now on.
        const next = await newKey('key-2');
        jwks.keys = [current, next];
        const rotated = () => sign({ key: next });
        expectInvalidToken(await api(rotating, await rotated()).get('/v1/my/profile'));
        expect(jwks.fetches).toBe(fetches);

        jest.setSystemTime(Date.now() + 61_000);
        expect((await api(rotating, await rotated()).get('/v1/my/profile')).status).toBe(200);
        expect(jwks.fetches).toBe(fetches + 1);
        // Known from now on: no further fetch.
        expect((await api(rotating, await rotated()).get('/v1/my/profile')).status).toBe(200);
        expect(jwks.fetches).toBe(fetches + 1);
      } finally {
        await rotating.close();
      }
    });
  });
});

describe('OAUTH_SERVER=false', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp({ OAUTH_SERVER: 'false' });
  });

  afterAll(async () => {
    await app.close();
  });

  it.each([
    ['GET', '/oauth/authorize?response_type=code&client_id=x'],
    ['POST', '/oauth/token'],
    ['POST', '/oauth/revoke'],
    ['POST', '/oauth/introspect'],
    ['GET', '/.well-known/oauth-authorization-server'],
  ])('%s %s answers 404', async (method, path) => {
    const server = app.getHttpServer();
    const response =
      method === 'GET'
        ? await request(server).get(path).set('User-Agent', USER_AGENT)
        : await request(server)
            .post(path)
            .set('User-Agent', USER_AGENT)
            .type('form')
            .send('grant_type=authorization_code');
    expect(response.status).toBe(404);
  });

  it('the API still accepts opaque tokens', async () => {
    await resetDatabase(app);
    const { token } = await createUserWithToken(app);
    expect((await api(app, token).get('/v1/my/profile')).status).toBe(200);
  });
});
