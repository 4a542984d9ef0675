import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Browser, Page, Response } from 'playwright-core';
import { anime, createUserWithToken, importTitles } from './factories';
import { launchBrowser } from './utils/browser';
import { createTestApp, resetDatabase } from './utils/test-app';

/**
 * Swagger UI at /docs in headless Chromium, as a reader uses it: Authorize with a bearer token,
 * then "Try it out" on GET profile and PUT. The browser sends its own `Mozilla/…` User-Agent, which
 * the API refuses; the page's Api-User-Agent is what makes these calls succeed (issue 17 item 1).
 */
// A browser parsing Swagger UI's bundle on a small, busy CI machine takes a while; this bounds a
// hang, it asserts nothing about speed.
jest.setTimeout(180_000);

describe('docs page in a browser', () => {
  let app: NestFastifyApplication;
  let browser: Browser;
  let page: Page;
  let origin: string;
  const apiCalls: Response[] = [];

  beforeAll(async () => {
    // Denial on, at its default threshold: a page sending only Mozilla/… would be refused.
    app = await createTestApp({ UA_DENY_THRESHOLD: '10' });
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

  /** Opens an operation, presses "Try it out", fills the path's id if any, and executes it. */
  async function tryItOut(operationId: string, id?: string): Promise<Response> {
    const block = page.locator(`[id$="-${operationId}"]`);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    if (id !== undefined) {
      await block.locator('tr[data-param-name="id"] input').fill(id);
    }
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname.startsWith('/v1/')),
      block.locator('button.execute').click(),
    ]);
    return response;
  }

  it('authorizes with a bearer token and runs GET profile and PUT with 200s', async () => {
    // The PUT example of the page is a 64-episode series.
    await importTitles(app, [anime(1, { episodes: 64 })]);
    const { user, token } = await createUserWithToken(app);

    await page.goto(`${origin}/docs`);
    await page.locator('button.authorize').first().click();
    const bearer = page.locator('.auth-container').filter({ hasText: 'bearer' }).first();
    await bearer.locator('input').first().fill(token);
    await bearer.locator('button.authorize').click();
    await page.locator('button.btn-done').first().click();

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
});
