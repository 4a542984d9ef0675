import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import * as oauth from 'oauth4webapi';
import { BaseClient, custom, errors, generators, Issuer, TokenSet } from 'openid-client';
import { DataSource, IsNull } from 'typeorm';
import { TokensService } from '../src/auth/tokens.service';
import { AuthorizationCode } from '../src/oauth/entities/authorization-code.entity';
import { ClientsService } from '../src/oauth/clients.service';
import { LOGIN_THROTTLE } from '../src/oauth/login-throttle.service';
import { UsersService } from '../src/users/users.service';
import { createTestApp, resetDatabase, USER_AGENT } from './utils/test-app';

/**
 * The authorization server driven the way a third-party app drives it: openid-client (a certified
 * OAuth/OpenID client library) discovers the server, builds the authorization URL, exchanges the
 * code, refreshes, revokes and introspects; oauth4webapi, which form-encodes HTTP Basic
 * credentials as RFC 6749 §2.3.1 says, runs the whole flow again; a small "browser" fills in the
 * sign-in and consent form. Everything over real HTTP against the app listening on a port, on the
 * run's database.
 */

const PASSWORD = 'correct horse battery staple';
const REDIRECT_URI = 'https://listsync.example/oauth/callback';
const OTHER_REDIRECT_URI = 'http://127.0.0.1:8765/callback';

// The machine is slow and shared; the library's default timeout is 3.5 s.
custom.setHttpOptionsDefaults({ timeout: 20_000 });

describe('OAuth 2.0 authorization server', () => {
  let app: NestFastifyApplication;
  let base: string;
  let issuer: Issuer<BaseClient>;
  let ipSequence = 0;
  // Each test signs in from its own address and as its own user, so the sign-in throttles of one
  // test never meet another (X-Forwarded-For counts: TRUST_PROXY=loopback; the counters outlive
  // the tables, and successful sign-ins count too).
  let ip: string;
  let userName: string;

  beforeAll(async () => {
    app = await createTestApp({ TRUST_PROXY: 'loopback' });
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
    issuer = await Issuer.discover(`${base}/.well-known/oauth-authorization-server`);
  });

  afterAll(async () => {
    await app.close();
  });

  beforeEach(async () => {
    await resetDatabase(app);
    ip = `198.51.100.${++ipSequence}`;
    userName = `alice${ipSequence}`;
  });

  // ---- set-up helpers ----------------------------------------------------------------------

  async function createUser(name = userName, password = PASSWORD) {
    return app.get(UsersService).create(name, password);
  }

  async function registerClient(
    options: { isPublic?: boolean; redirectUris?: string[]; name?: string } = {},
  ): Promise<{ clientId: string; secret: string | null }> {
    const { client, secret } = await app.get(ClientsService).create({
      name: options.name ?? 'ListSync',
      redirectUris: options.redirectUris ?? [REDIRECT_URI, OTHER_REDIRECT_URI],
      isPublic: options.isPublic ?? false,
    });
    return { clientId: client.clientId, secret };
  }

  function clientApp(
    registered: { clientId: string; secret: string | null },
    method: 'client_secret_basic' | 'client_secret_post' | 'none' = registered.secret
      ? 'client_secret_basic'
      : 'none',
    secret: string | undefined = registered.secret ?? undefined,
  ): BaseClient {
    return new issuer.Client({
      client_id: registered.clientId,
      ...(secret === undefined ? {} : { client_secret: secret }),
      redirect_uris: [REDIRECT_URI, OTHER_REDIRECT_URI],
      response_types: ['code'],
      token_endpoint_auth_method: method,
    });
  }

  function pkce() {
    const verifier = generators.codeVerifier();
    return { verifier, challenge: generators.codeChallenge(verifier) };
  }

  // ---- the browser ---------------------------------------------------------------------------

  const unescapeHtml = (text: string) =>
    text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));

  interface PageResult {
    status: number;
    location: string | null;
    body: string;
    headers: Headers;
  }

  async function browse(url: string, init: RequestInit = {}): Promise<PageResult> {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { 'x-forwarded-for': ip, ...(init.headers as Record<string, string>) },
    });
    return {
      status: response.status,
      location: response.headers.get('location'),
      body: await response.text(),
      headers: response.headers,
    };
  }

  interface SignIn {
    username?: string;
    password?: string;
    /** The scopes ticked; by default the page's ticks (every requested scope). */
    grant?: string[];
    decision?: 'approve' | 'deny';
    /** Changes the form before it is posted (tampering, missing CSRF token). */
    tamper?: (form: URLSearchParams) => void;
    cookie?: string | null;
  }

  /** Opens the authorization URL, fills in the page as a user would and posts it. */
  async function signIn(authorizationUrl: string, answer: SignIn = {}): Promise<PageResult> {
    const page = await browse(authorizationUrl);
    expect(page.status).toBe(200);
    return postForm(page, answer);
  }

  async function postForm(page: PageResult, answer: SignIn = {}): Promise<PageResult> {
    const form = new URLSearchParams();
    for (const [, name, value] of page.body.matchAll(
      /<input type="hidden" name="([^"]+)" value="([^"]*)">/g,
    )) {
      form.append(name, unescapeHtml(value));
    }
    const ticked = [
      ...page.body.matchAll(/<input type="checkbox" name="grant" value="([^"]+)" checked>/g),
    ].map((match) => match[1]);
    for (const scope of answer.grant ?? ticked) form.append('grant', scope);
    form.append('username', answer.username ?? userName);
    form.append('password', answer.password ?? PASSWORD);
    form.append('decision', answer.decision ?? 'approve');
    answer.tamper?.(form);
    const cookie =
      answer.cookie === undefined
        ? (page.headers.get('set-cookie')?.split(';')[0] ?? null)
        : answer.cookie;
    return browse(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(cookie ? { cookie } : {}),
      },
      body: form.toString(),
    });
  }

  /** Authorization URL → signed in and approved → the redirect back to the app. */
  async function authorize(
    client: BaseClient,
    options: { scope?: string; redirectUri?: string; signIn?: SignIn } = {},
  ) {
    const { verifier, challenge } = pkce();
    const state = generators.state();
    const redirectUri = options.redirectUri ?? REDIRECT_URI;
    const url = client.authorizationUrl({
      scope: options.scope ?? 'ratings.anime user.profile',
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    });
    const result = await signIn(url, options.signIn);
    expect(result.status).toBe(303);
    const location = result.location as string;
    expect(location.startsWith(`${redirectUri}?`)).toBe(true);
    return { verifier, state, redirectUri, params: client.callbackParams(location), location };
  }

  /** The whole front channel and the code exchange: a fresh token set. */
  async function obtainTokens(client: BaseClient, scope?: string): Promise<TokenSet> {
    const { verifier, state, redirectUri, params } = await authorize(client, { scope });
    return client.oauthCallback(redirectUri, params, { code_verifier: verifier, state });
  }

  /** Where the app lands when the authorization request itself is refused. */
  async function refusedAuthorization(url: string): Promise<Record<string, string>> {
    const result = await browse(url);
    expect(result.status).toBe(302);
    return Object.fromEntries(new URL(result.location as string).searchParams);
  }

  async function callApi(client: BaseClient, token: string | TokenSet, path = '/v1/my/profile') {
    return client.requestResource(`${base}${path}`, token, {
      headers: { 'User-Agent': USER_AGENT },
    });
  }

  async function expectOAuthError(
    promise: Promise<unknown>,
    error: string,
    status = 400,
  ): Promise<errors.OPError> {
    const caught = await promise.then(
      () => {
        throw new Error(`expected the OAuth error ${error}`);
      },
      (reason: unknown) => reason,
    );
    expect(caught).toBeInstanceOf(errors.OPError);
    expect((caught as errors.OPError).error).toBe(error);
    expect((caught as errors.OPError).response?.statusCode).toBe(status);
    return caught as errors.OPError;
  }

  // ---- discovery -----------------------------------------------------------------------------

  it('publishes RFC 8414 metadata that a client library can discover', () => {
    expect(issuer.metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      introspection_endpoint: `${base}/oauth/introspect`,
      scopes_supported: ['ratings.anime', 'ratings.manga', 'user.profile'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: [
        'client_secret_basic',
        'client_secret_post',
        'none',
      ],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('derives the issuer from X-Forwarded-Proto/-Host behind a trusted proxy', async () => {
    const response = await fetch(`${base}/.well-known/oauth-authorization-server`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'ratings.example' },
    });
    // Built from the request's headers: not for shared caches.
    expect(response.headers.get('cache-control')).toBe('no-store');
    const metadata = (await response.json()) as Record<string, string>;
    expect(metadata.issuer).toBe('https://ratings.example');
    expect(metadata.token_endpoint).toBe('https://ratings.example/oauth/token');
  });

  it('documents the OAuth endpoints in the OpenAPI document, with OAuth (not problem+json) errors', async () => {
    const document = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
      components: { securitySchemes: Record<string, { type: string }> };
    };
    for (const path of ['/oauth/authorize', '/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
      expect(document.paths[path]).toBeDefined();
    }
    expect(document.paths['/.well-known/oauth-authorization-server'].get).toBeDefined();
    expect(document.paths['/oauth/token'].post.responses['400'].content).toEqual({
      'application/json': {
        schema: { $ref: '#/components/schemas/OAuthErrorDto' },
        example: expect.objectContaining({ error: expect.any(String) }),
      },
    });
    expect(document.components.securitySchemes.oauth2.type).toBe('oauth2');
  });

  // ---- the whole flow ------------------------------------------------------------------------

  it('runs the whole flow: authorize, code exchange with PKCE, API call, refresh, reuse detection, revocation, introspection', async () => {
    const user = await createUser();
    const registered = await registerClient();
    const client = clientApp(registered);

    // Authorization request: the page lists the requested scopes and the app's name.
    const { verifier, challenge } = pkce();
    const state = generators.state();
    const url = client.authorizationUrl({
      scope: 'ratings.anime user.profile',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      redirect_uri: REDIRECT_URI,
    });
    const page = await browse(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('set-cookie')).toMatch(
      /^oauth_csrf=[\w-]{43}; Path=\/oauth\/authorize; Max-Age=3600; HttpOnly; SameSite=Lax$/,
    );
    // Secure when the page was reached over https (through the trusted proxy).
    const overHttps = await browse(url, { headers: { 'x-forwarded-proto': 'https' } });
    expect(overHttps.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    expect(page.body).toContain('ListSync');
    expect(page.body).toContain('(ratings.anime)');
    expect(page.body).toContain('(user.profile)');
    expect(page.body).not.toContain('(ratings.manga)');

    // The user signs in and approves: back to the app with code, state and iss (RFC 9207).
    const approved = await postForm(page);
    expect(approved.status).toBe(303);
    const params = client.callbackParams(approved.location as string);
    expect(params.state).toBe(state);
    expect(params.iss).toBe(base);
    expect(params.code).toMatch(/^[\w-]{43}$/);

    // Code exchange with the verifier (client_secret_basic).
    const tokens = await client.oauthCallback(REDIRECT_URI, params, {
      code_verifier: verifier,
      state,
    });
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBeGreaterThanOrEqual(3599);
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    expect(tokens.scope).toBe('ratings.anime user.profile');
    expect(tokens.access_token).toMatch(/^[\w-]{43}$/);
    expect(tokens.refresh_token).toMatch(/^[\w-]{43}$/);

    // The access token works at the API like a CLI-issued one, within its scopes.
    const profile = await callApi(client, tokens);
    expect(profile.statusCode).toBe(200);
    expect(JSON.parse(profile.body!.toString())).toMatchObject({ id: user.id, name: userName });
    expect((await callApi(client, tokens, '/v1/my/anime/ratings')).statusCode).toBe(200);
    expect((await callApi(client, tokens, '/v1/my/manga/ratings')).statusCode).toBe(403);

    // Refresh: a new pair; the old access token stays valid until it expires.
    const refreshed = await client.refresh(tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe('ratings.anime user.profile');
    expect(refreshed.expires_in).toBeGreaterThanOrEqual(3599);
    expect((await callApi(client, refreshed)).statusCode).toBe(200);

    // Reuse of the rotated refresh token: refused, and the whole family is revoked.
    await expectOAuthError(client.refresh(tokens.refresh_token!), 'invalid_grant');
    expect((await callApi(client, refreshed)).statusCode).toBe(401);
    expect((await callApi(client, tokens)).statusCode).toBe(401);
    await expectOAuthError(client.refresh(refreshed.refresh_token!), 'invalid_grant');

    // A new authorization, for revocation and introspection.
    const before = Math.floor(Date.now() / 1000);
    const fresh = await obtainTokens(client);
    const accessInfo = await client.introspect(fresh.access_token!, 'access_token');
    expect(accessInfo).toMatchObject({
      active: true,
      scope: 'ratings.anime user.profile',
      client_id: registered.clientId,
      username: userName,
      sub: String(user.id),
      token_type: 'Bearer',
      iss: base,
    });
    expect(accessInfo.exp).toBeGreaterThanOrEqual(before + 3600);
    expect(accessInfo.exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3602);
    const refreshInfo = await client.introspect(fresh.refresh_token!, 'refresh_token');
    expect(refreshInfo).toMatchObject({ active: true, client_id: registered.clientId });
    expect(refreshInfo.exp).toBeGreaterThanOrEqual(before + 2_592_000);
    expect(refreshInfo.exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 2_592_000 + 2);

    // Revoking the access token (with its hint) ends it at the API at once.
    await client.revoke(fresh.access_token!, 'access_token');
    expect((await callApi(client, fresh)).statusCode).toBe(401);
    expect(await client.introspect(fresh.access_token!)).toEqual({ active: false });
    // The refresh token still works...
    const afterRevoke = await client.refresh(fresh.refresh_token!);
    expect((await callApi(client, afterRevoke)).statusCode).toBe(200);
    // ...until it is revoked: that ends the whole authorization, access tokens included.
    await client.revoke(afterRevoke.refresh_token!, 'refresh_token');
    expect(await client.introspect(afterRevoke.refresh_token!, 'refresh_token')).toEqual({
      active: false,
    });
    await expectOAuthError(client.refresh(afterRevoke.refresh_token!), 'invalid_grant');
    expect((await callApi(client, afterRevoke)).statusCode).toBe(401);
  });

  it('serves public clients by PKCE alone, and confidential ones with client_secret_post', async () => {
    await createUser();
    const publicApp = clientApp(await registerClient({ isPublic: true, name: 'Pocket' }), 'none');
    const publicTokens = await obtainTokens(publicApp, 'ratings.manga');
    expect(publicTokens.scope).toBe('ratings.manga');
    expect((await callApi(publicApp, publicTokens, '/v1/my/manga/ratings')).statusCode).toBe(200);
    const refreshed = await publicApp.refresh(publicTokens.refresh_token!);
    expect((await callApi(publicApp, refreshed, '/v1/my/manga/ratings')).statusCode).toBe(200);
    await publicApp.revoke(refreshed.refresh_token!, 'refresh_token');
    await expectOAuthError(publicApp.refresh(refreshed.refresh_token!), 'invalid_grant');
    // Introspection is for confidential clients.
    await expectOAuthError(publicApp.introspect(refreshed.access_token!), 'invalid_client', 401);

    const registered = await registerClient();
    const postApp = clientApp(registered, 'client_secret_post');
    const postTokens = await obtainTokens(postApp);
    expect((await callApi(postApp, postTokens)).statusCode).toBe(200);
    expect(await postApp.introspect(postTokens.access_token!)).toMatchObject({ active: true });
  });

  it('grants only the scopes the user ticks, a subset of those requested', async () => {
    await createUser();
    const client = clientApp(await registerClient());
    const { verifier, state, redirectUri, params } = await authorize(client, {
      scope: 'ratings.anime ratings.manga user.profile',
      signIn: { grant: ['ratings.manga'] },
    });
    const tokens = await client.oauthCallback(redirectUri, params, {
      code_verifier: verifier,
      state,
    });
    expect(tokens.scope).toBe('ratings.manga');
    expect((await callApi(client, tokens, '/v1/my/manga/ratings')).statusCode).toBe(200);
    expect((await callApi(client, tokens, '/v1/my/anime/ratings')).statusCode).toBe(403);

    // A refresh can narrow the scopes but never widen them.
    await expectOAuthError(
      client.refresh(tokens.refresh_token!, {
        exchangeBody: { scope: 'ratings.manga ratings.anime' },
      }),
      'invalid_scope',
    );
    // The refused refresh did not spend the token; a narrower scope is fine.
    const narrowed = await client.refresh(tokens.refresh_token!, {
      exchangeBody: { scope: 'ratings.manga' },
    });
    expect(narrowed.scope).toBe('ratings.manga');
  });

  it('narrows only the access token on refresh: the new refresh token keeps its scopes (RFC 6749 §6)', async () => {
    await createUser();
    const client = clientApp(await registerClient());
    const tokens = await obtainTokens(client, 'ratings.anime user.profile');
    const narrowed = await client.refresh(tokens.refresh_token!, {
      exchangeBody: { scope: 'ratings.anime' },
    });
    expect(narrowed.scope).toBe('ratings.anime');
    expect((await callApi(client, narrowed)).statusCode).toBe(403);
    expect(await client.introspect(narrowed.refresh_token!, 'refresh_token')).toMatchObject({
      active: true,
      scope: 'ratings.anime user.profile',
    });
    const widenedAgain = await client.refresh(narrowed.refresh_token!);
    expect(widenedAgain.scope).toBe('ratings.anime user.profile');
    expect((await callApi(client, widenedAgain)).statusCode).toBe(200);
  });

  it('removes repeated scopes on refresh, and the new refresh token works', async () => {
    await createUser();
    const client = clientApp(await registerClient());
    const tokens = await obtainTokens(client, 'ratings.anime user.profile');
    // 20 × "ratings.anime" is longer than the scopes column (255): must not reach it as is.
    const refreshed = await client.refresh(tokens.refresh_token!, {
      exchangeBody: { scope: Array<string>(20).fill('ratings.anime').join(' ') },
    });
    expect(refreshed.scope).toBe('ratings.anime');
    expect(await client.introspect(refreshed.access_token!)).toMatchObject({
      active: true,
      scope: 'ratings.anime',
    });
    const next = await client.refresh(refreshed.refresh_token!);
    expect(next.scope).toBe('ratings.anime user.profile');
  });

  it('tokens issued by the flow and by `tokens issue` are interchangeable at the API, not across clients', async () => {
    const user = await createUser();
    const client = clientApp(await registerClient());
    const flowToken = (await obtainTokens(client)).access_token!;
    const cliToken = (await app.get(TokensService).issue(user.name, 'ratings.anime user.profile'))
      .token;
    for (const token of [flowToken, cliToken]) {
      expect((await callApi(client, token)).statusCode).toBe(200);
    }
    // A client sees only its own tokens; revoking another's is a no-op.
    expect(await client.introspect(cliToken)).toEqual({ active: false });
    await client.revoke(cliToken);
    expect((await callApi(client, cliToken)).statusCode).toBe(200);
    const otherClient = clientApp(await registerClient({ name: 'Other' }));
    expect(await otherClient.introspect(flowToken)).toEqual({ active: false });
  });

  it("refuses to revoke another client's token with unauthorized_client (RFC 7009 §2.1): it stays valid", async () => {
    await createUser();
    const client = clientApp(await registerClient());
    const tokens = await obtainTokens(client);
    for (const otherClient of [
      clientApp(await registerClient({ name: 'Other' })),
      clientApp(await registerClient({ name: 'Other public', isPublic: true }), 'none'),
    ]) {
      for (const [token, hint] of [
        [tokens.access_token!, 'access_token'],
        [tokens.refresh_token!, 'refresh_token'],
        [tokens.refresh_token!, undefined],
      ] as const) {
        const error = await expectOAuthError(
          otherClient.revoke(token, hint),
          'unauthorized_client',
        );
        expect(error.error_description).toBe('the token was issued to another client');
      }
    }
    expect((await callApi(client, tokens)).statusCode).toBe(200);
    expect(await client.introspect(tokens.refresh_token!, 'refresh_token')).toMatchObject({
      active: true,
    });
    await client.revoke(tokens.refresh_token!, 'refresh_token');
    expect((await callApi(client, tokens)).statusCode).toBe(401);
  });

  // ---- a client library that form-encodes HTTP Basic credentials ----------------------------

  describe('with oauth4webapi', () => {
    const insecure = { [oauth.allowInsecureRequests]: true };
    let as: oauth.AuthorizationServer;

    beforeAll(async () => {
      const issuerUrl = new URL(base);
      as = await oauth.processDiscoveryResponse(
        issuerUrl,
        await oauth.discoveryRequest(issuerUrl, { algorithm: 'oauth2', ...insecure }),
      );
    });

    /**
     * A confidential client whose id or secret holds `-` or `_`: oauth4webapi sends them as `%2D`
     * and `%5F` (RFC 6749 §2.3.1), which the server must decode. Most secrets have one.
     */
    async function encodedClient(redirectUris?: string[]) {
      for (;;) {
        const registered = await registerClient({ redirectUris });
        if (/[-_]/.test(`${registered.clientId}${registered.secret}`)) return registered;
      }
    }

    /** Front channel with the library's PKCE and state, back to `redirectUri`. */
    async function authorizeWith(client: oauth.Client, redirectUri: string, scope: string) {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: redirectUri,
        scope,
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).toString();
      const approved = await signIn(url.href);
      expect(approved.status).toBe(303);
      expect(approved.location!.startsWith(`${redirectUri}?`)).toBe(true);
      const params = oauth.validateAuthResponse(as, client, new URL(approved.location!), state);
      return { params, verifier };
    }

    async function callApiWith(token: string, path = '/v1/my/profile') {
      return fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT },
      });
    }

    it('runs the whole flow with form-encoded client_secret_basic: code, API call, refresh, introspection, revocation', async () => {
      const user = await createUser();
      const registered = await encodedClient();
      const client: oauth.Client = { client_id: registered.clientId };
      const auth = oauth.ClientSecretBasic(registered.secret!);

      const { params, verifier } = await authorizeWith(
        client,
        REDIRECT_URI,
        'ratings.anime user.profile',
      );
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          params,
          REDIRECT_URI,
          verifier,
          insecure,
        ),
      );
      expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'ratings.anime user.profile' });
      const profile = await callApiWith(tokens.access_token);
      expect(profile.status).toBe(200);
      expect(await profile.json()).toMatchObject({ id: user.id });

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
      );
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect((await callApiWith(refreshed.access_token)).status).toBe(200);

      const introspection = await oauth.processIntrospectionResponse(
        as,
        client,
        await oauth.introspectionRequest(as, client, auth, refreshed.access_token, insecure),
      );
      expect(introspection).toMatchObject({ active: true, client_id: registered.clientId });

      // 200 with `{}` as JSON: clients that parse the answer as JSON (simple-oauth2) accept it.
      const revoked = await oauth.revocationRequest(
        as,
        client,
        auth,
        refreshed.refresh_token!,
        insecure,
      );
      expect(revoked.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(revoked.headers.get('cache-control')).toBe('no-store');
      expect(await revoked.clone().json()).toEqual({});
      await oauth.processRevocationResponse(revoked);
      expect((await callApiWith(refreshed.access_token)).status).toBe(401);
    });

    it('matches http://127.0.0.1 and http://[::1] redirect URIs with any port (RFC 8252 §7.3), nothing else', async () => {
      await createUser();
      const registered = await encodedClient([
        'http://127.0.0.1:8765/callback',
        'http://[::1]/cb',
        'http://localhost:8080/cb',
      ]);
      const client: oauth.Client = { client_id: registered.clientId };
      const auth = oauth.ClientSecretBasic(registered.secret!);

      for (const redirectUri of ['http://127.0.0.1:49152/callback', 'http://[::1]:61000/cb']) {
        const { params, verifier } = await authorizeWith(client, redirectUri, 'ratings.anime');
        const tokens = await oauth.processAuthorizationCodeResponse(
          as,
          client,
          await oauth.authorizationCodeGrantRequest(
            as,
            client,
            auth,
            params,
            redirectUri,
            verifier,
            insecure,
          ),
        );
        expect((await callApiWith(tokens.access_token, '/v1/my/anime/ratings')).status).toBe(200);
      }

      // The code is bound to the port it was sent to (RFC 6749 §4.1.3).
      const { params, verifier } = await authorizeWith(
        client,
        'http://127.0.0.1:49153/callback',
        'ratings.anime',
      );
      const otherPort = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        'http://127.0.0.1:49154/callback',
        verifier,
        insecure,
      );
      expect(otherPort.status).toBe(400);
      expect(await otherPort.json()).toMatchObject({ error: 'invalid_grant' });

      for (const redirectUri of [
        'http://localhost:8081/cb',
        'http://127.0.0.1:49152/callback/',
        'http://127.0.0.2:8765/callback',
        'https://127.0.0.1:8765/callback',
      ]) {
        const url = new URL(as.authorization_endpoint!);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: redirectUri,
          scope: 'ratings.anime',
          code_challenge: await oauth.calculatePKCECodeChallenge(
            oauth.generateRandomCodeVerifier(),
          ),
          code_challenge_method: 'S256',
        }).toString();
        const refused = await browse(url.href);
        expect(refused.status).toBe(400);
        expect(refused.location).toBeNull();
      }
    });

    it('refuses two client authentication methods in one token request: invalid_request, code not spent', async () => {
      await createUser();
      const registered = await encodedClient();
      const client: oauth.Client = { client_id: registered.clientId };
      const auth = oauth.ClientSecretBasic(registered.secret!);
      const { params, verifier } = await authorizeWith(client, REDIRECT_URI, 'ratings.anime');

      for (const additionalParameters of [
        { client_secret: registered.secret! },
        { client_secret: 'not-the-secret' },
        { client_id: 'someone-else' },
      ] as Record<string, string>[]) {
        const both = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          params,
          REDIRECT_URI,
          verifier,
          { ...insecure, additionalParameters },
        );
        expect(both.status).toBe(400);
        expect(both.headers.get('cache-control')).toBe('no-store');
        expect(await both.json()).toMatchObject({ error: 'invalid_request' });
      }
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          params,
          REDIRECT_URI,
          verifier,
          insecure,
        ),
      );
      expect(tokens.access_token).toBeDefined();
    });
  });

  // ---- negative cases: each the RFC's error code --------------------------------------------

  describe('refuses', () => {
    let client: BaseClient;
    let registered: { clientId: string; secret: string | null };

    beforeEach(async () => {
      await createUser();
      registered = await registerClient();
      client = clientApp(registered);
    });

    it('a wrong code verifier: invalid_grant, and the code is spent', async () => {
      const { verifier, state, redirectUri, params } = await authorize(client);
      await expectOAuthError(
        client.oauthCallback(redirectUri, params, {
          code_verifier: generators.codeVerifier(),
          state,
        }),
        'invalid_grant',
      );
      await expectOAuthError(
        client.oauthCallback(redirectUri, params, { code_verifier: verifier, state }),
        'invalid_grant',
      );
    });

    it('a code exchange without a verifier: invalid_grant', async () => {
      const { state, redirectUri, params } = await authorize(client);
      await expectOAuthError(client.oauthCallback(redirectUri, params, { state }), 'invalid_grant');
    });

    it('PKCE plain, or no PKCE at all: invalid_request back at the redirect URI', async () => {
      const state = generators.state();
      const verifier = generators.codeVerifier();
      const plain = await refusedAuthorization(
        client.authorizationUrl({
          scope: 'user.profile',
          redirect_uri: REDIRECT_URI,
          code_challenge: verifier,
          code_challenge_method: 'plain',
          state,
        }),
      );
      expect(plain).toMatchObject({ error: 'invalid_request', state, iss: base });
      expect(plain.error_description).toMatch(/plain/);
      const unknownMethod = await refusedAuthorization(
        client.authorizationUrl({
          scope: 'user.profile',
          redirect_uri: REDIRECT_URI,
          code_challenge: generators.codeChallenge(verifier),
          code_challenge_method: 'S256"<x>',
          state,
        }),
      );
      expect(unknownMethod).toMatchObject({ error: 'invalid_request', state });
      expect(unknownMethod.error_description).toBe('code_challenge_method must be S256');
      const defaultPlain = await refusedAuthorization(
        client.authorizationUrl({
          scope: 'user.profile',
          redirect_uri: REDIRECT_URI,
          code_challenge: verifier,
          state,
        }),
      );
      expect(defaultPlain).toMatchObject({ error: 'invalid_request', state });
      const none = await refusedAuthorization(
        client.authorizationUrl({ scope: 'user.profile', redirect_uri: REDIRECT_URI, state }),
      );
      expect(none).toMatchObject({ error: 'invalid_request', state });
      expect(none.error_description).toMatch(/PKCE/);
      // Through the client library, as an app would see it.
      await expect(client.oauthCallback(REDIRECT_URI, plain, { state })).rejects.toMatchObject({
        error: 'invalid_request',
      });
    });

    it('plain smuggled into the consent form: invalid_request, no code', async () => {
      const { challenge } = pkce();
      const page = await browse(
        client.authorizationUrl({
          scope: 'user.profile',
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
      );
      const posted = await postForm(page, {
        tamper: (form) => form.set('code_challenge_method', 'plain'),
      });
      expect(posted.status).toBe(303);
      const params = new URL(posted.location as string).searchParams;
      expect(params.get('error')).toBe('invalid_request');
      expect(params.get('code')).toBeNull();
    });

    it('a reused code: invalid_grant, and the tokens it gave are revoked', async () => {
      const { verifier, state, redirectUri, params } = await authorize(client);
      const tokens = await client.oauthCallback(redirectUri, params, {
        code_verifier: verifier,
        state,
      });
      expect((await callApi(client, tokens)).statusCode).toBe(200);
      await expectOAuthError(
        client.oauthCallback(redirectUri, params, { code_verifier: verifier, state }),
        'invalid_grant',
      );
      expect((await callApi(client, tokens)).statusCode).toBe(401);
      await expectOAuthError(client.refresh(tokens.refresh_token!), 'invalid_grant');
    });

    it('an expired code: invalid_grant', async () => {
      const { verifier, state, redirectUri, params } = await authorize(client);
      await app
        .get(DataSource)
        .getRepository(AuthorizationCode)
        .update({ usedAt: IsNull() }, { expiresAt: new Date(Date.now() - 1000) });
      const error = await expectOAuthError(
        client.oauthCallback(redirectUri, params, { code_verifier: verifier, state }),
        'invalid_grant',
      );
      expect(error.error_description).toMatch(/expired/);
    });

    it('codes live 60 seconds', async () => {
      await authorize(client);
      const [code] = await app.get(DataSource).getRepository(AuthorizationCode).find();
      const lifetime = (code.expiresAt.getTime() - code.createdAt.getTime()) / 1000;
      expect(lifetime).toBeGreaterThanOrEqual(59);
      expect(lifetime).toBeLessThanOrEqual(61);
    });

    it('a redirect URI that is not registered exactly: an error page, never a redirect', async () => {
      const { challenge } = pkce();
      for (const redirectUri of [
        'https://evil.example/callback',
        `${REDIRECT_URI}/`,
        `${REDIRECT_URI}?x=1`,
        'HTTPS://listsync.example/oauth/callback',
      ]) {
        const result = await browse(
          client.authorizationUrl({
            scope: 'user.profile',
            redirect_uri: redirectUri,
            code_challenge: challenge,
            code_challenge_method: 'S256',
            state: 'xyz',
          }),
        );
        expect(result.status).toBe(400);
        expect(result.location).toBeNull();
        expect(result.headers.get('content-type')).toMatch(/^text\/html/);
        expect(result.body).toMatch(/redirect_uri is not one the application registered/);
      }
    });

    it('a redirect URI at the token endpoint other than the authorization request’s: invalid_grant', async () => {
      const { verifier, state, params } = await authorize(client, { redirectUri: REDIRECT_URI });
      await expectOAuthError(
        client.oauthCallback(OTHER_REDIRECT_URI, params, { code_verifier: verifier, state }),
        'invalid_grant',
      );
    });

    it('a wrong client secret: invalid_client with 401 and a Basic challenge', async () => {
      const { verifier, state, redirectUri, params } = await authorize(client);
      for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
        const impostor = clientApp(registered, method, 'not-the-secret');
        const error = await expectOAuthError(
          impostor.oauthCallback(redirectUri, params, { code_verifier: verifier, state }),
          'invalid_client',
          401,
        );
        expect(error.response?.headers['www-authenticate']).toBe('Basic realm="oauth"');
      }
      // A confidential client that sends no secret is not a public one.
      await expectOAuthError(
        clientApp(registered, 'none', undefined).oauthCallback(redirectUri, params, {
          code_verifier: verifier,
          state,
        }),
        'invalid_client',
        401,
      );
      // The code was not spent by the failed attempts.
      const tokens = await client.oauthCallback(redirectUri, params, {
        code_verifier: verifier,
        state,
      });
      expect(tokens.access_token).toBeDefined();
      await expectOAuthError(
        clientApp(registered, 'client_secret_basic', 'wrong').revoke(tokens.access_token!),
        'invalid_client',
        401,
      );
      await expectOAuthError(
        clientApp(registered, 'client_secret_post', 'wrong').introspect(tokens.access_token!),
        'invalid_client',
        401,
      );
    });

    it('a scope outside ratings.anime, ratings.manga, user.profile: invalid_scope', async () => {
      const { challenge } = pkce();
      const state = generators.state();
      for (const scope of ['ratings.anime admin', 'openid', ' ']) {
        const refused = await refusedAuthorization(
          client.authorizationUrl({
            scope,
            redirect_uri: REDIRECT_URI,
            code_challenge: challenge,
            code_challenge_method: 'S256',
            state,
          }),
        );
        expect(refused).toMatchObject({ error: 'invalid_scope', state });
        // RFC 6749 §4.1.2.1: error_description is NQSCHAR (no "), and echoes nothing of the request.
        expect(refused.error_description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
        expect(refused.error_description).not.toMatch(/admin|openid/);
      }
      const tampered = await browse(
        client.authorizationUrl({
          scope: 'user.profile',
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
      );
      const posted = await postForm(tampered, {
        tamper: (form) => form.set('scope', 'user.profile admin'),
        grant: ['user.profile', 'admin'],
      });
      expect(new URL(posted.location as string).searchParams.get('error')).toBe('invalid_scope');
    });

    it('other bad requests with their RFC codes', async () => {
      const { challenge } = pkce();
      const unsupported = await refusedAuthorization(
        client.authorizationUrl({
          response_type: 'token',
          scope: 'user.profile',
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
      );
      expect(unsupported.error).toBe('unsupported_response_type');

      const unknownClient = await browse(
        `${base}/oauth/authorize?response_type=code&client_id=nobody&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
      );
      expect(unknownClient.status).toBe(400);
      expect(unknownClient.location).toBeNull();

      const token = (body: string, headers: Record<string, string> = {}) =>
        fetch(`${base}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body,
        });
      const password = await token(
        `grant_type=password&username=alice&password=x&client_id=${registered.clientId}`,
      );
      expect(password.status).toBe(400);
      expect(password.headers.get('content-type')).toMatch(/^application\/json/);
      expect(password.headers.get('cache-control')).toBe('no-store');
      expect(await password.json()).toMatchObject({ error: 'unsupported_grant_type' });
      const repeated = await token('grant_type=refresh_token&grant_type=refresh_token');
      expect(await repeated.json()).toMatchObject({ error: 'invalid_request' });
      const json = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'x' }),
      });
      expect(json.status).toBe(400);
      expect(await json.json()).toMatchObject({ error: 'invalid_request' });
      const unknownRefresh = await token(
        `grant_type=refresh_token&refresh_token=nope&client_id=${registered.clientId}&client_secret=${registered.secret}`,
      );
      expect(await unknownRefresh.json()).toMatchObject({ error: 'invalid_grant' });
      const noToken = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${registered.clientId}:${registered.secret}`).toString('base64')}`,
        },
        body: 'token_type_hint=access_token',
      });
      expect(noToken.status).toBe(400);
      expect(await noToken.json()).toMatchObject({ error: 'invalid_request' });
      // Revoking an unknown token is not an error (RFC 7009 §2.2).
      await client.revoke('unknown-token', 'refresh_token');
    });
  });

  // ---- the sign-in and consent page -----------------------------------------------------------

  describe('the sign-in and consent page', () => {
    let client: BaseClient;

    beforeEach(async () => {
      await createUser();
      client = clientApp(await registerClient());
    });

    const authorizationUrl = (state = generators.state()) =>
      client.authorizationUrl({
        scope: 'ratings.anime user.profile',
        redirect_uri: REDIRECT_URI,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        state,
      });

    it('sends the user back with access_denied and the state on "Deny"', async () => {
      const state = generators.state();
      const result = await signIn(authorizationUrl(state), {
        decision: 'deny',
        password: '',
      });
      expect(result.status).toBe(303);
      expect(Object.fromEntries(new URL(result.location as string).searchParams)).toMatchObject({
        error: 'access_denied',
        state,
        iss: base,
      });
    });

    it('refuses a post without the CSRF cookie or with a token that does not match it', async () => {
      for (const answer of [
        { cookie: null },
        { cookie: `oauth_csrf=${'A'.repeat(43)}` },
        { tamper: (form: URLSearchParams) => form.delete('csrf_token') },
      ]) {
        const result = await signIn(authorizationUrl(), answer);
        expect(result.status).toBe(403);
        expect(result.location).toBeNull();
        expect(result.body).toMatch(/form has expired/);
      }
      expect(await app.get(DataSource).getRepository(AuthorizationCode).count()).toBe(0);
    });

    it('keeps the CSRF token of an open page when another one is opened', async () => {
      const first = await browse(authorizationUrl());
      const cookie = first.headers.get('set-cookie')!.split(';')[0];
      const second = await browse(authorizationUrl(), { headers: { cookie } });
      expect(second.headers.get('set-cookie')!.split(';')[0]).toBe(cookie);
      expect((await postForm(first, { cookie })).status).toBe(303);
    });

    it('shows the page again on a wrong password or no ticked scope, escaping what it echoes', async () => {
      const wrong = await signIn(authorizationUrl(), {
        username: 'alice"><script>',
        password: 'wrong password',
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatch(/Wrong user name or password/);
      expect(wrong.body).toContain('value="alice&#34;&#62;&#60;script&#62;"');
      expect(wrong.body).not.toContain('<script>');
      const nothingTicked = await signIn(authorizationUrl(), { grant: [] });
      expect(nothingTicked.status).toBe(400);
      expect(nothingTicked.body).toMatch(/at least one permission/);
      const noPassword = await browse(authorizationUrl());
      expect((await postForm(noPassword, { password: '' })).status).toBe(400);
    });

    it('refuses users without a password', async () => {
      await app.get(UsersService).create('nopass');
      const result = await signIn(authorizationUrl(), { username: 'nopass', password: PASSWORD });
      expect(result.status).toBe(400);
      expect(result.body).toMatch(/Wrong user name or password/);
    });

    it(`throttles sign-in per account: ${LOGIN_THROTTLE.account.attempts} attempts lock it, from any address`, async () => {
      // Locks last the whole window (the counters outlive the tables): an account of its own.
      await createUser('dave');
      for (let i = 0; i < LOGIN_THROTTLE.account.attempts; i++) {
        ip = `203.0.113.${i + 1}`;
        const result = await signIn(authorizationUrl(), {
          username: 'dave',
          password: `guess number ${i}`,
        });
        expect(result.status).toBe(400);
      }
      ip = '203.0.113.200';
      const locked = await signIn(authorizationUrl(), { username: 'dave' });
      expect(locked.status).toBe(429);
      expect(locked.body).toMatch(/Too many sign-in attempts/);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another account from the same address is unaffected.
      expect((await signIn(authorizationUrl())).status).toBe(303);
    });

    it(`throttles sign-in per IP: ${LOGIN_THROTTLE.ip.attempts} attempts lock the address, for every account`, async () => {
      for (let i = 0; i < LOGIN_THROTTLE.ip.attempts; i++) {
        const result = await signIn(authorizationUrl(), {
          username: `nobody${i}`,
          password: 'guess guess',
        });
        expect(result.status).toBe(400);
      }
      // Even the right password of a real account, from that address.
      const locked = await signIn(authorizationUrl());
      expect(locked.status).toBe(429);
      ip = '192.0.2.77';
      expect((await signIn(authorizationUrl())).status).toBe(303);
    }, 90_000);

    it('counts each sign-in before checking its password: concurrent guesses check no more than the limit', async () => {
      await createUser('erin');
      const guesses = 12;
      const page = await browse(authorizationUrl());
      const results = await Promise.all(
        Array.from({ length: guesses }, (_, i) =>
          postForm(page, { username: 'erin', password: `guess number ${i}` }),
        ),
      );
      const statuses = results.map((result) => result.status);
      // 400 is a password that was checked (and wrong); 429 one refused before the check.
      expect(statuses.filter((status) => status === 400).length).toBeLessThanOrEqual(
        LOGIN_THROTTLE.account.attempts,
      );
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(
        guesses - LOGIN_THROTTLE.account.attempts,
      );
      expect(statuses.every((status) => status === 400 || status === 429)).toBe(true);
      // The account is locked now, even to the right password from another address.
      ip = '192.0.2.78';
      expect((await signIn(authorizationUrl(), { username: 'erin' })).status).toBe(429);
    });
  });
});
