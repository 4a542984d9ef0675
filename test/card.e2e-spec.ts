import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { anime, createUser, importTitles, issueToken, manga, putEntry } from './factories';
import { launchBrowser } from './utils/browser';
import { api, createTestApp, useTestApp } from './utils/test-app';

/** Where the card's PNG is kept for CI to collect (git ignores the folder). */
const OUTPUT = join(__dirname, 'output');
const CSP = "default-src 'none'; style-src 'unsafe-inline'";
const MARKUP_NAME = `<script>alert(1)</script><b onload="x">&amp; 'Zoë'</b>`;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

jest.setTimeout(180_000);

const cardPath = (name: string) => `/v1/users/${encodeURIComponent(name)}/card.svg`;

/** The texts of an SVG document, in document order (its `<text>` elements' content, unescaped). */
function textsOf(svg: string): string[] {
  const unescape = (text: string) =>
    text
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((match) => unescape(match[1]));
}

/** The label/value pairs after a heading (`Anime`), as the card lays them out. */
function column(texts: string[], heading: string): Record<string, string> {
  const start = texts.indexOf(heading);
  const pairs: Record<string, string> = {};
  for (let i = start + 1; i + 1 < texts.length && i < start + 9; i += 2) {
    pairs[texts[i]] = texts[i + 1];
  }
  return pairs;
}

describe('the public card (contract §22)', () => {
  let app: NestFastifyApplication;
  useTestApp((created) => (app = created), { PUBLIC_CARDS: 'true', UA_DENY_THRESHOLD: '2' });

  const bare = (path: string) => request(app.getHttpServer()).get(path);

  /** A user who opted in, with visible and private entries of both media types. */
  async function seed(name = 'alice'): Promise<string> {
    await importTitles(app, [
      anime(1, { episodeMinutes: 24 }),
      anime(2, { episodeMinutes: 30 }),
      anime(3),
      manga(1),
      manga(2),
    ]);
    const user = await createUser(app, name);
    const token = await issueToken(app, user);
    await putEntry(app, token, 'anime', 1, {
      status: 'completed',
      public_rating: 9,
      public_fraction: 5,
      episodes_watched: 24,
    });
    await putEntry(app, token, 'anime', 2, {
      status: 'ongoing',
      public_rating: 7,
      episodes_watched: 10,
    });
    await putEntry(app, token, 'anime', 3, {
      status: 'completed',
      public_rating: 1,
      episodes_watched: 24,
      is_visible: false,
    });
    await putEntry(app, token, 'manga', 1, { status: 'ongoing', chapters_read: 10 });
    await putEntry(app, token, 'manga', 2, {
      status: 'completed',
      public_rating: 10,
      chapters_read: 100,
      is_visible: false,
    });
    await api(app, token).put('/v1/my/settings', { card: true }).expect(200);
    return token;
  }

  it('draws visible entries only, without token or User-Agent, with the headers of §22', async () => {
    await seed();
    const response = await bare(cardPath('alice')).set('User-Agent', 'curl/8.5.0').expect(200);
    expect(response.headers['content-type']).toBe('image/svg+xml');
    expect(response.headers['cache-control']).toBe('public, max-age=3600');
    expect(response.headers['content-security-policy']).toBe(CSP);
    const svg = response.text || String(response.body);
    expect(svg).toMatch(/^<svg [^>]*width="495" height="195"/);
    const texts = textsOf(svg);
    expect(texts[0]).toBe('alice');
    // Visible anime: 95 and 70 → 82.5 → 83 → 8.3; 24 × 24 + 10 × 30 = 876 minutes → 14 hours.
    expect(column(texts, 'Anime')).toEqual({
      Watching: '1',
      Completed: '1',
      'Mean score': '8.3',
      Hours: '14',
    });
    // Visible manga: nothing scored; 10 chapters × 8 = 80 minutes → 1 hour.
    expect(column(texts, 'Manga')).toEqual({
      Reading: '1',
      Completed: '0',
      'Mean score': '–',
      Hours: '1',
    });
    // No timestamp: the same bytes and ETag every time; 304 to that ETag.
    const again = await bare(cardPath('alice')).expect(200);
    expect(again.text || String(again.body)).toBe(svg);
    expect(again.headers.etag).toBe(response.headers.etag);
    const notModified = await bare(cardPath('alice'))
      .set('If-None-Match', response.headers.etag)
      .expect(304);
    expect(notModified.headers.etag).toBe(response.headers.etag);
    expect(notModified.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('answers an address denied by the User-Agent rule', async () => {
    await seed();
    for (let i = 0; i < 2; i++) await bare('/v1/my/profile').set('User-Agent', 'curl/8');
    expect((await bare('/v1/my/profile').set('User-Agent', 'curl/8')).status).toBe(403);
    await bare(cardPath('alice')).expect(200);
  });

  it('moves its ETag with what it shows, and only then', async () => {
    const token = await seed();
    const first = await bare(cardPath('alice')).expect(200);
    // A private entry and a visible entry's notes show nowhere on it.
    await putEntry(app, token, 'anime', 3, { status: 'dropped', public_rating: 3 });
    await putEntry(app, token, 'anime', 1, { status: 'completed', notes: 'hidden' });
    await bare(cardPath('alice')).set('If-None-Match', first.headers.etag).expect(304);
    await putEntry(app, token, 'anime', 2, { status: 'completed' });
    const moved = await bare(cardPath('alice'))
      .set('If-None-Match', first.headers.etag)
      .expect(200);
    expect(moved.headers.etag).not.toBe(first.headers.etag);
    expect(column(textsOf(moved.text || String(moved.body)), 'Anime')).toMatchObject({
      Watching: '0',
      Completed: '2',
    });
  });

  it('answers every refusal with the one 404 of an unknown path', async () => {
    const token = await seed();
    await createUser(app, 'bob'); // never opted in
    const closed = await createTestApp(); // PUBLIC_CARDS off
    try {
      const reference = await request(closed.getHttpServer()).get(cardPath('alice')).expect(404);
      expect(reference.headers['content-type']).toContain('application/problem+json');
      const refused = async (name: string) => ({ name, response: await bare(cardPath(name)) });
      // No such user, a user who never opted in, names that differ only in case or a space.
      const refusals = [
        await refused('nobody'),
        await refused('bob'),
        await refused('ALICE'),
        await refused('alice '),
      ];
      await api(app, token).put('/v1/my/settings', { card: false }).expect(200);
      refusals.push(await refused('alice'));
      for (const { name, response } of refusals) {
        const same = await request(closed.getHttpServer()).get(cardPath(name));
        expect({ name, status: response.status }).toEqual({ name, status: 404 });
        expect(response.headers['content-type']).toBe(same.headers['content-type']);
        expect(response.body).toEqual(same.body);
        expect(response.headers['content-security-policy']).toBeUndefined();
        // The same headers of its own as the closed app's 404: no budget that only cards count.
        const own = (headers: Record<string, unknown>) =>
          Object.keys(headers)
            .filter((header) => !['date', 'x-request-id', 'content-length'].includes(header))
            .sort();
        expect(own(response.headers)).toEqual(own(same.headers));
      }
    } finally {
      await closed.close();
    }
  });

  it('allows 600 requests per name in 10 minutes, then 429 with Retry-After, for any name', async () => {
    // Names of their own: the app's counters outlive the other tests' databases.
    await seed('carol');
    const server = app.getHttpAdapter().getInstance();
    const hit = (name: string) => server.inject({ method: 'GET', url: cardPath(name) });
    for (let i = 0; i < 600; i++) {
      const response = await hit('carol');
      if (response.statusCode !== 200) throw new Error(`request ${i + 1}: ${response.statusCode}`);
    }
    const limited = await hit('carol');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(600);
    expect(limited.headers['content-type']).toContain('application/problem+json');
    // Per name: another name has its own budget; an unknown one is limited alike.
    expect((await hit('nobody-else')).statusCode).toBe(404);
    for (let i = 0; i < 600; i++) await hit('nobody-else');
    expect((await hit('nobody-else')).statusCode).toBe(429);
  });

  it('shares the budget between instances through Redis', async () => {
    await seed();
    const env = {
      PUBLIC_CARDS: 'true',
      REDIS_URL,
      REDIS_KEY_PREFIX: `e2e-card-${randomBytes(6).toString('hex')}:`,
    };
    const one = await createTestApp(env);
    const two = await createTestApp(env);
    try {
      const hit = (instance: NestFastifyApplication) =>
        instance
          .getHttpAdapter()
          .getInstance()
          .inject({ method: 'GET', url: cardPath('alice') });
      for (let i = 0; i < 300; i++) {
        expect((await hit(one)).statusCode).toBe(200);
        expect((await hit(two)).statusCode).toBe(200);
      }
      expect((await hit(one)).statusCode).toBe(429);
      expect((await hit(two)).statusCode).toBe(429);
    } finally {
      await one.close();
      await two.close();
    }
  });

  describe('in Chromium', () => {
    let browser: Browser;
    let origin: string;
    let server: NestFastifyApplication;

    beforeAll(async () => {
      server = await createTestApp({ PUBLIC_CARDS: 'true' });
      await server.listen(0, '127.0.0.1');
      origin = await server.getUrl();
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    it('renders to a 495×195 PNG without errors, and a name full of markup as text', async () => {
      await seed(MARKUP_NAME);
      const page = await browser.newPage({ viewport: { width: 495, height: 195 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('dialog', (dialog) => {
        errors.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      const url = `${origin}${cardPath(MARKUP_NAME)}`;

      // As a page embeds it.
      await page.setContent(
        `<html><body style="margin:0"><img id="card" src="${url}" width="495" height="195"></body></html>`,
      );
      await page.waitForFunction("document.getElementById('card').complete");
      const size = await page.evaluate<{ width: number; height: number }>(
        "(() => { const image = document.getElementById('card'); return { width: image.naturalWidth, height: image.naturalHeight }; })()",
      );
      expect(size).toEqual({ width: 495, height: 195 });
      const png = await page.locator('#card').screenshot();
      expect(png.readUInt32BE(16)).toBe(495);
      expect(png.readUInt32BE(20)).toBe(195);
      mkdirSync(OUTPUT, { recursive: true });
      writeFileSync(join(OUTPUT, 'card.png'), png);

      // On a dark page it brings its dark palette (its own background: readable on either).
      const dark = await browser.newPage({
        viewport: { width: 495, height: 195 },
        colorScheme: 'dark',
      });
      await dark.setContent(
        `<html><body style="margin:0;background:#000"><img id="card" src="${url}"></body></html>`,
      );
      await dark.waitForFunction("document.getElementById('card').complete");
      const darkPng = await dark.locator('#card').screenshot();
      writeFileSync(join(OUTPUT, 'card-dark.png'), darkPng);
      expect(darkPng.equals(png)).toBe(false);
      await dark.close();

      // Opened as a document: the name is one text node, no element came from it.
      const response = await page.goto(url);
      expect(response?.status()).toBe(200);
      const shown = await page.evaluate<{
        name: string | null;
        scripts: number;
        bold: number;
        texts: (string | null)[];
      }>(`({
        name: document.querySelector('text.name').textContent,
        scripts: document.querySelectorAll('script').length,
        bold: document.querySelectorAll('b').length,
        texts: [...document.querySelectorAll('text')].map((text) => text.textContent),
      })`);
      expect(shown.name).toBe(MARKUP_NAME);
      expect(shown.scripts).toBe(0);
      expect(shown.bold).toBe(0);
      expect(shown.texts).toContain('Anime');
      expect(errors).toEqual([]);
      await page.close();
    });
  });
});
