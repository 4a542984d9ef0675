import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Browser, Page } from 'playwright-core';
import { ClientsService } from '../src/oauth/clients.service';
import { UsersService } from '../src/users/users.service';
import { launchBrowser } from './utils/browser';
import { createTestApp, resetDatabase } from './utils/test-app';

/**
 * The sign-in and consent page of /oauth/authorize in headless Chromium, used with the keyboard
 * alone: it names the service, focuses the first field, moves focus to the error after a failed
 * sign-in, and allow and deny look different (issue 17 item 13).
 */
jest.setTimeout(120_000);

const SERVICE_NAME = 'Otaku Club Ratings';
const PASSWORD = 'correct horse battery staple';
// Registered without a port: a loopback redirect URI matches on any port (RFC 8252 §7.3), here
// the port of the app's stand-in below.
const REGISTERED_REDIRECT_URI = 'http://127.0.0.1/callback';

describe('consent page in a browser, by keyboard', () => {
  let app: NestFastifyApplication;
  let browser: Browser;
  let page: Page;
  let origin: string;
  /** The app the browser is sent back to: a page that says so. */
  let appServer: Server;
  let redirectUri: string;
  let clientId: string;
  let userName: string;
  let sequence = 0;

  beforeAll(async () => {
    app = await createTestApp({ SERVICE_NAME });
    await app.listen(0, '127.0.0.1');
    origin = await app.getUrl();
    browser = await launchBrowser();
    appServer = createServer((_request, response) => response.end('back at the app'));
    await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/callback`;
  });

  beforeEach(async () => {
    await resetDatabase(app);
    userName = `reader${++sequence}`;
    await app.get(UsersService).create(userName, PASSWORD);
    const { client } = await app.get(ClientsService).create({
      name: 'ListSync',
      redirectUris: [REGISTERED_REDIRECT_URI],
      isPublic: true,
    });
    clientId = client.clientId;
    page = await browser.newPage();
    page.setDefaultTimeout(60_000);
  });

  afterEach(async () => {
    await page.close();
  });

  afterAll(async () => {
    await browser?.close();
    if (appServer) await new Promise((resolve) => appServer.close(resolve));
    await app?.close();
  });

  /** Opens the consent page for a fresh PKCE request; returns the verifier and the state. */
  async function openConsentPage(): Promise<{ verifier: string; state: string }> {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'ratings.anime user.profile',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    await page.goto(`${origin}/oauth/authorize?${query.toString()}`);
    // `autofocus` applies after the page has loaded: keys pressed before it would start from the body.
    await page.waitForFunction(
      'document.activeElement !== null && document.activeElement !== document.body',
    );
    return { verifier, state };
  }

  /** What has the keyboard focus: its name (or id) and role. */
  async function focused(): Promise<{ name: string | null; role: string | null }> {
    const element = page.locator(':focus');
    return {
      name: (await element.getAttribute('name')) ?? (await element.getAttribute('id')),
      role: await element.getAttribute('role'),
    };
  }

  /** Presses Enter and waits for the page the form post leads to. */
  async function submitWithEnter(): Promise<void> {
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  }

  it('signs in after a failed attempt and allows, by keyboard alone: back with a code', async () => {
    const { verifier, state } = await openConsentPage();
    expect(await page.title()).toBe(`Authorize ListSync – ${SERVICE_NAME}`);
    expect(await page.locator('body').innerText()).toContain(
      `ListSync asks for access to your ${SERVICE_NAME} account.`,
    );
    expect(await focused()).toEqual({ name: 'username', role: null });

    // Allow and deny do not look alike.
    const look = (value: string) =>
      page.evaluate<string>(
        `(() => { const style = getComputedStyle(document.querySelector('button[value="${value}"]'));
          return [style.backgroundColor, style.color, style.fontWeight].join(' '); })()`,
      );
    expect(await look('approve')).not.toEqual(await look('deny'));

    await page.keyboard.type(userName);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await submitWithEnter();

    // The reason has the focus, and is announced.
    expect(await focused()).toEqual({ name: 'error', role: 'alert' });
    expect(await page.locator('p#error:focus').count()).toBe(1);
    expect(await page.locator('#error').innerText()).toBe('Wrong user name or password.');

    // Tab leads from the error to the user name (kept), then to the password.
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ name: 'username' });
    expect(await page.locator('input[name="username"]').inputValue()).toBe(userName);
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ name: 'password' });
    await page.keyboard.type(PASSWORD);
    await submitWithEnter();

    const back = new URL(page.url());
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(origin);
    const code = back.searchParams.get('code');
    expect(code).toMatch(/^[\w-]{43}$/);

    // The code is a real one: the app exchanges it for a token of the ticked scopes.
    const exchange = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    expect(exchange.status).toBe(200);
    expect(await exchange.json()).toMatchObject({ scope: 'ratings.anime user.profile' });
  });

  it('denies by keyboard: Tab to Deny, Space, back with access_denied', async () => {
    const { state } = await openConsentPage();
    // User name, password, the two scopes, allow, deny.
    for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
    expect(await page.locator(':focus').innerText()).toBe('Deny');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Space')]);

    const back = new URL(page.url());
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(state);
  });
});
