import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { User } from '../src/users/user.entity';
import { anime, createUser, importTitles, issueToken, manga, putEntry } from './factories';
import { api, createTestApp, resetDatabase, useTestApp } from './utils/test-app';

const TITLES = [anime(1), anime(2), anime(3), anime(4), anime(5), manga(1), manga(2), manga(3)];
const PUBLIC = { PUBLIC_LISTS: 'true' };
const HIDDEN = ['personal_rating', 'notes', 'is_visible'];
const SECRET = 'my secret note';

const listPath = (name: string, mediaType = 'anime', query = '') =>
  `/v1/users/${encodeURIComponent(name)}/${mediaType}/ratings${query}`;
const profilePath = (name: string) => `/v1/users/${encodeURIComponent(name)}/profile`;

describe('public lists (contract §18)', () => {
  let app: NestFastifyApplication;
  let owner: User;
  let ownerToken: string;
  let readerToken: string;

  useTestApp((created) => (app = created), PUBLIC);

  beforeEach(async () => {
    await importTitles(app, TITLES);
    owner = await createUser(app, 'Zoë Ann/B');
    ownerToken = await issueToken(app, owner);
    readerToken = await issueToken(app, await createUser(app, 'reader'));
  });

  /** Two visible and one private anime entry, one visible and one private manga entry. */
  async function seed(): Promise<void> {
    await putEntry(app, ownerToken, 'anime', 1, {
      status: 'completed',
      public_rating: 9,
      public_fraction: 5,
      personal_rating: 97,
      episodes_watched: 24,
      notes: SECRET,
    });
    await putEntry(app, ownerToken, 'anime', 2, {
      status: 'ongoing',
      is_visible: false,
      notes: SECRET,
    });
    await putEntry(app, ownerToken, 'anime', 3, { status: 'ongoing', public_rating: 7 });
    await putEntry(app, ownerToken, 'manga', 1, { status: 'ongoing', chapters_read: 10 });
    await putEntry(app, ownerToken, 'manga', 2, {
      status: 'completed',
      is_visible: false,
      personal_rating: 80,
      notes: SECRET,
    });
  }

  const read = (path: string, token = readerToken) => api(app, token).get(path);

  it('lists visible entries only, of both media types, without the personal fields', async () => {
    await seed();
    const animeList = await read(listPath(owner.name)).expect(200);
    expect(animeList.body.map((entry: { id: number }) => entry.id)).toEqual([1, 3]);
    const own = await api(app, ownerToken).get('/v1/my/anime/ratings').expect(200);
    const ownFirst = { ...own.body[0] };
    for (const field of HIDDEN) delete ownFirst[field];
    expect(animeList.body[0]).toEqual(ownFirst);
    expect(animeList.body[0]).toMatchObject({ status: 'completed', public_rating: 9 });

    const mangaList = await read(listPath(owner.name, 'manga')).expect(200);
    expect(mangaList.body.map((entry: { id: number }) => entry.id)).toEqual([1]);
    expect(mangaList.body[0]).toMatchObject({ id: 1, chapters_read: 10, title: 'Manga 1' });

    for (const entry of [...animeList.body, ...mangaList.body]) {
      for (const field of HIDDEN) expect(entry).not.toHaveProperty(field);
    }
    expect(animeList.text + mangaList.text).not.toContain(SECRET);
  });

  it('a user reading their own name sees what others see', async () => {
    await seed();
    const byReader = await read(listPath(owner.name)).expect(200);
    const byOwner = await read(listPath(owner.name), ownerToken).expect(200);
    expect(byOwner.body).toEqual(byReader.body);
  });

  it('finds names with spaces, accents and / percent-encoded; other spellings are 404', async () => {
    await seed();
    await read(listPath('Zoë Ann/B')).expect(200);
    for (const name of ['zoë ann/b', 'ZOË ANN/B', 'Zoe Ann/B', 'Zoë Ann/B ', ' Zoë Ann/B', 'Zoë']) {
      const response = await read(listPath(name)).expect(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 404, success: false });
    }
    await read(listPath('nobody')).expect(404);
    await read('/v1/users/Zo%C3%AB%20Ann%2FB%20/anime/ratings').expect(404);
    await read('/v1/users/Zo%C3%AB%20Ann%2FB/anime/ratings').expect(200);
  });

  it('odd names are 404 or 400 problem+json, never a 5xx', async () => {
    const emoji = await createUser(app, 'fan \u{1F600}');
    await read(listPath(emoji.name)).expect(200);
    // Percent-encoding's hex digits are case-insensitive: the same name.
    await read(listPath(emoji.name).toLowerCase()).expect(200);
    for (const segment of [
      '%FF',
      '%E9',
      '%00',
      'a%0Ab',
      '%20',
      '%F0%9F%98',
      '%ED%A0%80',
      'x'.repeat(300),
      encodeURIComponent('é'.repeat(65)),
    ]) {
      for (const path of [`/v1/users/${segment}/anime/ratings`, `/v1/users/${segment}/profile`]) {
        const response = await read(path);
        expect({
          path,
          status: response.status,
          expected: [400, 404].includes(response.status),
        }).toEqual({ path, status: response.status, expected: true });
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
    }
  });

  it('other methods on the public paths are 405 with Allow: GET', async () => {
    const response = await api(app, readerToken).delete(listPath(owner.name)).expect(405);
    expect(response.headers.allow).toMatch(/GET/);
    await api(app, readerToken).put(profilePath(owner.name), {}).expect(405);
  });

  it('finds a user whose name differs from another only by letter case', async () => {
    const lower = await createUser(app, 'casey');
    await putEntry(app, await issueToken(app, lower), 'anime', 4, { status: 'dropped' });
    expect((await read(listPath('casey')).expect(200)).body).toHaveLength(1);
    await read(listPath('Casey')).expect(404);
    await read(listPath('CASEY')).expect(404);
  });

  it('needs a token (401) with the scope of the media type (403 insufficient_scope)', async () => {
    await seed();
    const none = await api(app).get(listPath(owner.name)).expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="ratings"');
    const reader = await createUser(app, 'narrow');
    for (const [scopes, mediaType, scope] of [
      [['ratings.manga', 'user.profile'], 'anime', 'ratings.anime'],
      [['ratings.anime'], 'manga', 'ratings.manga'],
    ] as const) {
      const token = await issueToken(app, reader, scopes);
      const refused = await api(app, token).get(listPath(owner.name, mediaType)).expect(403);
      expect(refused.headers['www-authenticate']).toBe(
        `Bearer error="insufficient_scope", scope="${scope}"`,
      );
      // Step 5 comes before step 7: an unknown name is refused the same way.
      await api(app, token).get(listPath('nobody', mediaType)).expect(403);
    }
  });

  it('an unknown media type is 404', async () => {
    const response = await read(listPath(owner.name, 'novels')).expect(404);
    expect(response.body.detail).toMatch(/media type/);
  });

  it('status, limit/after and Link work over visible entries only', async () => {
    await seed();
    await putEntry(app, ownerToken, 'anime', 4, { status: 'completed' });
    await putEntry(app, ownerToken, 'anime', 5, { status: 'completed', is_visible: false });

    const completed = await read(listPath(owner.name, 'anime', '?status=completed')).expect(200);
    expect(completed.body.map((entry: { id: number }) => entry.id)).toEqual([1, 4]);

    const first = await read(listPath(owner.name, 'anime', '?limit=2')).expect(200);
    expect(first.body.map((entry: { id: number }) => entry.id)).toEqual([1, 3]);
    const next = `/v1/users/${encodeURIComponent(owner.name)}/anime/ratings?limit=2&after=3`;
    expect(first.headers.link).toBe(`<${next}>; rel="next"`);
    const second = await read(next).expect(200);
    expect(second.body.map((entry: { id: number }) => entry.id)).toEqual([4]);
    expect(second.headers.link).toBeUndefined();

    // The last visible entry ends the list, though a private one follows it.
    const last = await read(listPath(owner.name, 'anime', '?status=completed&limit=2')).expect(200);
    expect(last.body.map((entry: { id: number }) => entry.id)).toEqual([1, 4]);
    expect(last.headers.link).toBeUndefined();

    const invalid = await read(listPath(owner.name, 'anime', '?status=nope&after=1')).expect(400);
    expect(invalid.body.errors.map((error: { field: string }) => error.field)).toEqual([
      'status',
      'after',
    ]);
    // Query values (400) are checked before the name (404), both at step 7.
    await read(listPath('nobody', 'anime', '?limit=0')).expect(400);
  });

  describe('public profile', () => {
    it('equals the own profile of a user holding just the visible entries; private ones count nowhere', async () => {
      await seed();
      const twin = await createUser(app, 'visible twin');
      const twinToken = await issueToken(app, twin);
      // The visible entries of seed(), written again for the twin.
      await putEntry(app, twinToken, 'anime', 1, {
        status: 'completed',
        public_rating: 9,
        public_fraction: 5,
        personal_rating: 97,
        episodes_watched: 24,
      });
      await putEntry(app, twinToken, 'anime', 3, { status: 'ongoing', public_rating: 7 });
      await putEntry(app, twinToken, 'manga', 1, { status: 'ongoing', chapters_read: 10 });
      // Private entries that would move every number if they counted.
      await putEntry(app, ownerToken, 'anime', 4, {
        status: 'completed',
        is_visible: false,
        public_rating: 2,
        episodes_watched: 12,
        times_rewatched: 3,
      });
      await putEntry(app, ownerToken, 'manga', 3, {
        status: 'on_hold',
        is_visible: false,
        public_rating: 1,
        chapters_read: 50,
        volumes_read: 5,
        times_reread: 2,
      });

      const own = await api(app, twinToken).get('/v1/my/profile').expect(200);
      const response = await read(profilePath(owner.name)).expect(200);
      expect(response.body).toEqual({
        id: owner.id,
        name: owner.name,
        joined_at: owner.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        statistics: own.body.statistics,
      });
      expect(response.body.statistics.anime).toMatchObject({ watching: 1, completed: 1 });
      expect(response.text).not.toContain(SECRET);
      // The owner's own profile still counts everything.
      const ownerOwn = await api(app, ownerToken).get('/v1/my/profile').expect(200);
      expect(ownerOwn.body.statistics.anime.completed).toBe(2);
      expect(ownerOwn.body.statistics.anime.watching).toBe(2);
    });

    it('needs user.profile (403 insufficient_scope) and a known, exactly spelled name (404)', async () => {
      const token = await issueToken(app, owner, ['ratings.anime', 'ratings.manga']);
      const refused = await api(app, token).get(profilePath(owner.name)).expect(403);
      expect(refused.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="user.profile"',
      );
      await api(app).get(profilePath(owner.name)).expect(401);
      await read(profilePath(owner.name)).expect(200);
      await read(profilePath('zoë ann/b')).expect(404);
      await read(profilePath('nobody')).expect(404);
    });

    it('304 while unchanged, through private writes and personal fields; 200 after a visibility switch', async () => {
      await seed();
      const path = profilePath(owner.name);
      const first = await read(path).expect(200);
      const etag = first.headers.etag;
      expect(first.headers.vary).toMatch(/Authorization/);
      await read(path).set('If-None-Match', etag).expect(304);
      await putEntry(app, ownerToken, 'anime', 4, { status: 'ongoing', is_visible: false });
      await putEntry(app, ownerToken, 'anime', 4, { status: 'dropped', public_rating: 3 });
      await api(app, ownerToken).delete('/v1/my/anime/4/ratings').expect(200);
      await putEntry(app, ownerToken, 'anime', 1, { status: 'completed', personal_rating: 1 });
      // A visible entry's dates change the public list, not one number of the profile.
      await putEntry(app, ownerToken, 'anime', 3, { status: 'ongoing', start_date: '2024-02-03' });
      await read(path).set('If-None-Match', etag).expect(304);

      await putEntry(app, ownerToken, 'anime', 2, { status: 'ongoing', is_visible: true });
      const switched = await read(path).set('If-None-Match', etag).expect(200);
      expect(switched.headers.etag).not.toBe(etag);
      expect(switched.body.statistics.anime.watching).toBe(
        first.body.statistics.anime.watching + 1,
      );
      // Own and public profiles are different views: never one ETag.
      const own = await api(app, ownerToken).get('/v1/my/profile').expect(200);
      expect(own.headers.etag).not.toBe(switched.headers.etag);
    });
  });

  describe('conditional reads', () => {
    async function etagOf(path: string, token = readerToken, on = app): Promise<string> {
      const response = await api(on, token).get(path).expect(200);
      expect(response.headers['cache-control']).toBe('private, no-cache');
      expect(response.headers.vary).toMatch(/Authorization/);
      return response.headers.etag;
    }
    const notModified = (path: string, etag: string) =>
      read(path).set('If-None-Match', etag).expect(304);

    it('304 while the public list is unchanged, whatever happens to private entries and personal fields', async () => {
      await seed();
      const path = listPath(owner.name);
      const etag = await etagOf(path);
      await notModified(path, etag);

      await putEntry(app, ownerToken, 'anime', 4, { status: 'ongoing', is_visible: false });
      await notModified(path, etag);
      await putEntry(app, ownerToken, 'anime', 4, {
        status: 'dropped',
        notes: 'changed',
        touch: true,
      });
      await notModified(path, etag);
      await api(app, ownerToken).delete('/v1/my/anime/4/ratings').expect(200);
      await notModified(path, etag);
      await putEntry(app, ownerToken, 'anime', 1, {
        status: 'completed',
        personal_rating: 12,
        notes: 'another secret',
      });
      await notModified(path, etag);
      // Another media type, and other users' lists, are other bodies.
      await putEntry(app, ownerToken, 'manga', 3, { status: 'ongoing' });
      await putEntry(app, readerToken, 'anime', 1, { status: 'ongoing' });
      await notModified(path, etag);
    });

    it('200 with a new ETag after a visibility switch, a visible write or a deletion', async () => {
      await seed();
      const path = listPath(owner.name);
      const tags = [await etagOf(path)];
      const expectNewTag = async () => {
        const response = await read(path).set('If-None-Match', tags.join(', ')).expect(200);
        expect(tags).not.toContain(response.headers.etag);
        tags.push(response.headers.etag);
        return response.body as { id: number }[];
      };

      await putEntry(app, ownerToken, 'anime', 2, { status: 'ongoing', is_visible: true });
      expect((await expectNewTag()).map((entry) => entry.id)).toEqual([1, 2, 3]);
      await putEntry(app, ownerToken, 'anime', 1, { status: 'completed', is_visible: false });
      expect((await expectNewTag()).map((entry) => entry.id)).toEqual([2, 3]);
      await putEntry(app, ownerToken, 'anime', 3, { status: 'ongoing', episodes_watched: 4 });
      await expectNewTag();
      await api(app, ownerToken).delete('/v1/my/anime/3/ratings').expect(200);
      expect((await expectNewTag()).map((entry) => entry.id)).toEqual([2]);
      await putEntry(app, ownerToken, 'anime', 5, { status: 'bookmark' });
      expect((await expectNewTag()).map((entry) => entry.id)).toEqual([2, 5]);
    });

    it('a catalog update moves the public ETag only when a visible entry holds the title', async () => {
      await seed();
      const path = listPath(owner.name);
      const etag = await etagOf(path);
      await importTitles(app, [anime(2, { title: 'Renamed privately held' })]);
      await notModified(path, etag);
      await importTitles(app, [anime(3, { title: 'Renamed publicly held' })]);
      const response = await read(path).set('If-None-Match', etag).expect(200);
      expect(response.body[1].title).toBe('Renamed publicly held');
    });

    it('own and public views, users, media types and queries never share an ETag', async () => {
      await seed();
      await createUser(app, 'twin');
      const tags = [
        await etagOf('/v1/my/anime/ratings', ownerToken),
        await etagOf(listPath(owner.name), ownerToken),
        await etagOf(listPath(owner.name)),
        await etagOf(listPath(owner.name, 'manga')),
        await etagOf(listPath(owner.name, 'anime', '?status=completed')),
        await etagOf(listPath(owner.name, 'anime', '?limit=1')),
        await etagOf(listPath(owner.name, 'anime', '?limit=1&after=1')),
        // Two users with empty public lists: the same body, still different tags.
        await etagOf(listPath('twin')),
        await etagOf(listPath('reader')),
      ];
      expect(tags[1]).toBe(tags[2]); // The reader does not matter: the view is the same.
      tags.splice(1, 1);
      expect(new Set(tags).size).toBe(tags.length);
    });

    it('two instances see a visibility switch at once', async () => {
      const other = await createTestApp(PUBLIC);
      try {
        await seed();
        const path = listPath(owner.name);
        const etag = await etagOf(path, readerToken, other);
        expect(await etagOf(path)).toBe(etag);
        await putEntry(app, ownerToken, 'anime', 1, { status: 'completed', is_visible: false });
        const switched = await api(other, readerToken)
          .get(path)
          .set('If-None-Match', etag)
          .expect(200);
        expect(switched.body.map((entry: { id: number }) => entry.id)).toEqual([3]);
        const profile = await api(other, readerToken).get(profilePath(owner.name)).expect(200);
        expect(profile.body.statistics.anime.completed).toBe(0);
        await putEntry(other, ownerToken, 'anime', 1, { status: 'completed', is_visible: true });
        const profileBack = await read(profilePath(owner.name)).expect(200);
        expect(profileBack.body.statistics.anime.completed).toBe(1);
        const back = await read(path).set('If-None-Match', switched.headers.etag).expect(200);
        expect(back.body.map((entry: { id: number }) => entry.id)).toEqual([1, 3]);
      } finally {
        await other.close();
      }
    });
  });
});

describe('public lists: rate limits (user limit 3 per 60 s)', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp({
      ...PUBLIC,
      RATE_LIMIT_USER_LIMIT: '3',
      RATE_LIMIT_USER_WINDOW_SECONDS: '60',
      RATE_LIMIT_IP_LIMIT: '1000',
    });
    await resetDatabase(app);
    await importTitles(app, TITLES);
  });

  afterAll(async () => {
    await app.close();
  });

  const remaining = (response: { headers: Record<string, string> }) =>
    Number(response.headers['ratelimit-remaining']);

  it('the public list is one row for both media types, apart from GET all; counted for the caller, unknown names included', async () => {
    const owner = await createUser(app, 'limited owner');
    const reader = await createUser(app, 'limited reader');
    const client = api(app, await issueToken(app, reader));
    expect(remaining(await client.get(listPath(owner.name)).expect(200))).toBe(2);
    expect(remaining(await client.get(listPath(owner.name, 'manga')).expect(200))).toBe(1);
    // Step 7: the unknown name is answered after the rate limits, and counts.
    expect(remaining(await client.get(listPath('nobody')).expect(404))).toBe(0);
    const limited = await client.get(listPath(owner.name, 'manga')).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    // GET all of the reader's own list has a budget of its own.
    expect(remaining(await client.get('/v1/my/anime/ratings').expect(200))).toBe(2);
    // The owner's budget is not the reader's: a read counts for whoever calls.
    const ownerClient = api(app, await issueToken(app, owner));
    expect(remaining(await ownerClient.get(listPath(owner.name)).expect(200))).toBe(2);
  });

  it('the public profile is a row of its own, apart from the own profile', async () => {
    const owner = await createUser(app, 'profile owner');
    const client = api(app, await issueToken(app, await createUser(app, 'profile reader')));
    expect(remaining(await client.get(profilePath(owner.name)).expect(200))).toBe(2);
    expect(remaining(await client.get(profilePath('nobody')).expect(404))).toBe(1);
    expect(remaining(await client.get(listPath(owner.name)).expect(200))).toBe(2);
    expect(remaining(await client.get('/v1/my/profile').expect(200))).toBe(2);
    expect(remaining(await client.get(profilePath(owner.name)).expect(200))).toBe(0);
    await client.get(profilePath(owner.name)).expect(429);
  });
});

describe('public lists turned off (PUBLIC_LISTS unset)', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp();
    await resetDatabase(app);
  });

  afterAll(async () => {
    await app.close();
  });

  it('both paths are 404 problem+json like any unknown path', async () => {
    const user = await createUser(app, 'hidden');
    const token = await issueToken(app, user);
    const unknown = await api(app, token).get('/v1/nothing/here').expect(404);
    for (const path of [listPath('hidden'), listPath('hidden', 'manga'), profilePath('hidden')]) {
      for (const client of [api(app, token), api(app)]) {
        const response = await client.get(path).expect(404);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.body).toMatchObject({ status: 404, success: false });
        expect(response.body.type).toBe(unknown.body.type);
        expect(response.headers['ratelimit-limit']).toBeUndefined();
      }
    }
  });
});
