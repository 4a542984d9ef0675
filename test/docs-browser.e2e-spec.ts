import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Browser, Page, Response } from 'playwright-core';
import { DataSource } from 'typeorm';
import { OAuthClient } from '../src/oauth/entities/oauth-client.entity';
import { ClientsService } from '../src/oauth/clients.service';
import { UsersService } from '../src/users/users.service';
import { anime, createUserWithToken, importTitles, putEntry } from './factories';
import { launchBrowser } from './utils/browser';
import { createTestApp, resetDatabase } from './utils/test-app';

/**
 * Swagger UI at /docs in headless Chromium, as a reader uses it: Authorize with a bearer token,
 * then "Try it out" on GET profile and PUT. The browser sends its own `Mozilla/…` User-Agent, which
 * the API refuses; the page's Api-User-Agent is what makes these calls succeed (issue 17 item 1).
 * Then Authorize through OAuth2 with PKCE, signing in on the consent page (issue 17 item 2).
 */
// A browser parsing Swagger UI's bundle on a small, busy CI machine takes a while; this bounds a
// hang, it asserts nothing about speed.
jest.setTimeout(180_000);

/** DOCS_OAUTH_CLIENT_ID of the app under test: the id of the client registered for the page. */
const DOCS_CLIENT_ID = 'docs-page-client';

describe('docs page in a browser', () => {
  let app: NestFastifyApplication;
  let browser: Browser;
  let page: Page;
  let origin: string;
  const apiCalls: Response[] = [];

  beforeAll(async () => {
    // Denial on, at its default threshold: a page sending only Mozilla/… would be refused.
    app = await createTestApp({
      UA_DENY_THRESHOLD: '10',
      DOCS_OAUTH_CLIENT_ID: DOCS_CLIENT_ID,
      PUBLIC_LISTS: 'true',
    });
    await app.listen(0, '127.0.0.1');
    origin = await app.getUrl();
    browser = await launchBrowser();
  });

  beforeEach(async () => {
    await resetDatabase(app);
    apiCalls.length = 0;
    page = await browser.newPage();
    page.setDefaultTimeout(120_000);
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/v1/')) apiCalls.push(response);
    });
  });

  afterEach(async () => {
    await page.close();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Opens an operation, presses "Try it out", fills the path's parameters given, and executes it. */
  async function tryItOut(operationId: string, id?: string, name?: string): Promise<Response> {
    const block = page.locator(`[id$="-${operationId}"]`);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    if (id !== undefined) {
      await block.locator('tr[data-param-name="id"] input').fill(id);
    }
    if (name !== undefined) {
      await block.locator('tr[data-param-name="name"] input').fill(name);
    }
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname.startsWith('/v1/')),
      block.locator('button.execute').click(),
    ]);
    return response;
  }

  /** Opens the page and authorizes it with a bearer token. */
  async function openWithBearer(token: string): Promise<void> {
    await page.goto(`${origin}/docs`);
    await page.locator('button.authorize').first().click();
    const bearer = page.locator('.auth-container').filter({ hasText: 'bearer' }).first();
    await bearer.locator('input').first().fill(token);
    await bearer.locator('button.authorize').click();
    await page.locator('button.btn-done').first().click();
  }

  it('authorizes with a bearer token and runs GET profile and PUT with 200s', async () => {
    // The PUT example of the page is a 64-episode series.
    await importTitles(app, [anime(1, { episodes: 64 })]);
    const { user, token } = await createUserWithToken(app);

    await openWithBearer(token);

    const profile = await tryItOut('ProfileController_get');
    expect(profile.status()).toBe(200);
    expect(((await profile.json()) as { name: string }).name).toBe(user.name);
    expect(profile.request().headers()['user-agent']).toMatch(/^Mozilla\//);
    expect(profile.request().headers()['api-user-agent']).toMatch(/^RatingsDocs\/\S+ \(.+\)$/);

    const put = await tryItOut('putAnimeRating', '1');
    expect(put.status()).toBe(200);
    expect(await put.json()).toEqual({ success: true });
    // The page's own result panel shows the same answer.
    const shown = page
      .locator('[id$="-putAnimeRating"] .live-responses-table tbody .response-col_status')
      .first();
    expect(await shown.innerText()).toContain('200');
    expect(apiCalls.map((r) => r.status())).toEqual([200, 200]);
  });

  it('pre-fills no list filter in "Try it out": own and public lists come back whole (issue 30 item 7)', async () => {
    await importTitles(app, [anime(1), anime(2), anime(3)]);
    const { user, token } = await createUserWithToken(app);
    await putEntry(app, token, 'anime', 1, { status: 'completed', is_visible: true });
    await putEntry(app, token, 'anime', 2, { status: 'dropped', is_visible: true });
    await putEntry(app, token, 'anime', 3, { status: 'bookmark', is_visible: true });

    await openWithBearer(token);
    for (const [operationId, name] of [
      ['listAnimeRatings', undefined],
      ['listPublicAnimeRatings', user.name],
    ]) {
      const list = await tryItOut(operationId!, undefined, name);
      expect({ operationId, status: list.status(), query: new URL(list.url()).search }).toEqual({
        operationId,
        status: 200,
        query: '',
      });
      expect(((await list.json()) as { id: number }[]).map((entry) => entry.id)).toEqual([1, 2, 3]);
    }
  });

  it('authorizes through OAuth2 with PKCE and the consent page, then GET profile is 200', async () => {
    const password = 'correct horse battery staple';
    const user = await app.get(UsersService).create('docsreader', password);
    // As the README's command registers it (a loopback URI without a port matches any port).
    const { client } = await app.get(ClientsService).create({
      name: 'API docs',
      redirectUris: ['http://127.0.0.1/docs/oauth2-redirect.html'],
      isPublic: true,
    });
    // The id the operator then puts in DOCS_OAUTH_CLIENT_ID (fixed when the app started).
    await app
      .get(DataSource)
      .getRepository(OAuthClient)
      .update({ clientId: client.clientId }, { clientId: DOCS_CLIENT_ID });

    await page.goto(`${origin}/docs`);
    await page.locator('button.authorize').first().click();
    const oauth = page.locator('.auth-container').filter({ hasText: 'Authorization Code' }).first();
    expect(await oauth.locator('input[data-name="clientId"]').inputValue()).toBe(DOCS_CLIENT_ID);

    const [consent] = await Promise.all([
      page.waitForEvent('popup'),
      oauth.locator('button.authorize').click(),
    ]);
    await consent.waitForLoadState();
    const authorizeUrl = new URL(consent.url());
    expect(authorizeUrl.pathname).toBe('/oauth/authorize');
    expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(
      `${origin}/docs/oauth2-redirect.html`,
    );
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('scope')).toBe('ratings.anime ratings.manga user.profile');
    expect(await consent.locator('h1').innerText()).toBe('Authorize API docs');

    await consent.locator('input[name="username"]').fill(user.name);
    await consent.locator('input[name="password"]').fill(password);
    // The redirect page hands the code to Swagger UI and closes itself.
    const closed = consent.waitForEvent('close');
    const [exchange] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/oauth/token'),
      consent.locator('button[value="approve"]').click(),
    ]);
    expect(exchange.status()).toBe(200);
    const issued = (await exchange.json()) as { access_token: string; scope: string };
    expect(issued.scope).toBe('ratings.anime ratings.manga user.profile');
    await closed;

    await oauth.locator('button', { hasText: 'Logout' }).waitFor();
    await page.locator('button.btn-done').first().click();
    const profile = await tryItOut('ProfileController_get');
    expect(profile.status()).toBe(200);
    expect(((await profile.json()) as { name: string }).name).toBe(user.name);
    expect(profile.request().headers().authorization).toBe(`Bearer ${issued.access_token}`);
  });
});
