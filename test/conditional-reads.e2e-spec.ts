import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { anime, createUserWithToken, importTitles, manga, putEntry } from './factories';
import { api, createTestApp, resetDatabase } from './utils/test-app';

const TITLES = [anime(1), anime(2), anime(3), anime(4), anime(5), manga(1)];

describe('conditional reads (ETag, If-None-Match)', () => {
  let app: NestFastifyApplication;
  let other: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp();
    other = await createTestApp();
  });

  afterAll(async () => {
    await app.close();
    await other.close();
  });

  beforeEach(async () => {
    await resetDatabase(app);
    await importTitles(app, TITLES);
  });

  const READS = [
    '/v1/my/anime/1/ratings',
    '/v1/my/anime/ratings',
    '/v1/my/anime/ratings?status=ongoing&limit=1',
    '/v1/my/profile',
  ];

  async function etagOf(token: string, path: string, on = app): Promise<string> {
    const response = await api(on, token).get(path).expect(200);
    expect(response.headers['cache-control']).toBe('private, no-cache');
    expect(response.headers.vary).toMatch(/Authorization/);
    expect(response.headers.etag).toMatch(/^"[^"]+"$/);
    return response.headers.etag;
  }

  async function seed(token: string) {
    await putEntry(app, token, 'anime', 1);
    await putEntry(app, token, 'anime', 2, { status: 'completed' });
  }

  it('the same data has the same ETag on another instance and after a restart', async () => {
    const { token } = await createUserWithToken(app);
    await seed(token);
    for (const path of READS) {
      const tag = await etagOf(token, path);
      expect(await etagOf(token, path)).toBe(tag);
      expect(await etagOf(token, path, other)).toBe(tag);
    }
    const before = await Promise.all(READS.map((path) => etagOf(token, path)));
    await app.close();
    app = await createTestApp();
    expect(await Promise.all(READS.map((path) => etagOf(token, path)))).toEqual(before);
  });

  it('answers 304 with the ETag and no body to a matching If-None-Match: single, list, *, weak', async () => {
    const { token } = await createUserWithToken(app);
    await seed(token);
    for (const path of READS) {
      const tag = await etagOf(token, path);
      for (const header of [tag, `"nope", ${tag}`, '*', `W/${tag}`, `"a","b" , W/${tag}`]) {
        const response = await api(app, token).get(path).set('If-None-Match', header).expect(304);
        expect(response.headers.etag).toBe(tag);
        expect(response.headers['cache-control']).toBe('private, no-cache');
        expect(response.text ?? '').toBe('');
      }
      await api(app, token).get(path).set('If-None-Match', '"nope", W/"other"').expect(200);
    }
  });

  it('the changes feed answers 304 while its body is the same', async () => {
    const { token } = await createUserWithToken(app);
    await seed(token);
    // The cursor carries its issue time (seconds): the body, and so the tag, may move each second.
    let matched = false;
    for (let attempt = 0; attempt < 5 && !matched; attempt++) {
      const first = await api(app, token).get('/v1/my/anime/changes').expect(200);
      const again = await api(other, token)
        .get('/v1/my/anime/changes')
        .set('If-None-Match', first.headers.etag);
      if (again.status === 304) {
        expect(again.headers.etag).toBe(first.headers.etag);
        matched = true;
      } else {
        expect(again.status).toBe(200);
        expect(again.body.cursor).not.toBe(first.body.cursor);
      }
    }
    expect(matched).toBe(true);
  });

  it('any change of the body gives a new ETag; writes elsewhere do not', async () => {
    const alice = await createUserWithToken(app);
    const bob = await createUserWithToken(app);
    await seed(alice.token);
    await seed(bob.token);
    const tags = async () => Promise.all(READS.map((path) => etagOf(alice.token, path)));
    const seen = new Set<string>();
    const expectAllNew = async () => {
      for (const tag of await tags()) {
        expect(seen.has(tag)).toBe(false);
        seen.add(tag);
      }
    };
    await expectAllNew();

    // Other users' writes, and catalog updates of titles alice does not hold, change nothing.
    const unchanged = await tags();
    await putEntry(app, bob.token, 'anime', 3);
    await importTitles(app, [anime(4, { title: 'Renamed, not held' })]);
    expect(await tags()).toEqual(unchanged);

    // An update without touch, a delete, a catalog update of a held title: all new.
    await putEntry(app, alice.token, 'anime', 1, { status: 'ongoing', notes: 'x' });
    await expectAllNew();
    await importTitles(app, [anime(1, { title: 'Renamed' })]);
    await expectAllNew();
    await putEntry(app, alice.token, 'anime', 1, { status: 'dropped' });
    await expectAllNew();
    await api(app, alice.token).delete('/v1/my/anime/1/ratings').expect(200);
    const afterDelete = await tags();
    for (const tag of afterDelete.slice(1)) expect(seen.has(tag)).toBe(false);

    // A manga write moves the profile, not the anime list.
    const animeList = await etagOf(alice.token, '/v1/my/anime/ratings');
    const profile = await etagOf(alice.token, '/v1/my/profile');
    await putEntry(app, alice.token, 'manga', 1);
    expect(await etagOf(alice.token, '/v1/my/anime/ratings')).toBe(animeList);
    expect(await etagOf(alice.token, '/v1/my/profile')).not.toBe(profile);
  });

  it('a body kept by ETag (BODY_CACHE_MB) is always the one an instance without the cache builds', async () => {
    const uncached = await createTestApp({ BODY_CACHE_MB: '0' });
    try {
      const alice = await createUserWithToken(app);
      await seed(alice.token);
      const paths = [
        '/v1/my/anime/ratings',
        '/v1/my/anime/ratings?limit=1',
        '/v1/my/anime/ratings?limit=1&after=1',
        '/v1/my/profile',
      ];
      const expectSameAsUncached = async () => {
        for (const path of paths) {
          // The second read of the cached instance is the one served from its cache.
          await api(app, alice.token).get(path).expect(200);
          const cached = await api(app, alice.token).get(path).expect(200);
          const built = await api(uncached, alice.token).get(path).expect(200);
          expect(cached.text).toBe(built.text);
          expect(cached.headers.etag).toBe(built.headers.etag);
          expect(cached.headers.link).toBe(built.headers.link);
          expect(cached.headers['content-type']).toBe(built.headers['content-type']);
        }
      };
      await expectSameAsUncached();
      expect((await api(app, alice.token).get(paths[1])).headers.link).toMatch(/rel="next"/);
      await putEntry(app, alice.token, 'anime', 2, { status: 'dropped' });
      await expectSameAsUncached();
      await importTitles(app, [anime(1, { title: 'Renamed', episodes: 12 })]);
      await expectSameAsUncached();
      // Written through the other instance: this one's cache must not hide it.
      await putEntry(uncached, alice.token, 'anime', 3);
      await expectSameAsUncached();
      await api(uncached, alice.token).delete('/v1/my/anime/1/ratings').expect(200);
      await expectSameAsUncached();
      // Concurrent reads of a new version share one build.
      await putEntry(app, alice.token, 'anime', 4);
      const together = await Promise.all(
        paths.flatMap((path) => [1, 2, 3].map(() => api(app, alice.token).get(path).expect(200))),
      );
      for (const [index, response] of together.entries()) {
        const built = await api(uncached, alice.token).get(paths[Math.floor(index / 3)]);
        expect(response.text).toBe(built.text);
        expect(response.headers.etag).toBe(built.headers.etag);
        expect(response.headers.link).toBe(built.headers.link);
      }
    } finally {
      await uncached.close();
    }
  });

  it('two different bodies never share an ETag: users, queries, pages, endpoints', async () => {
    const alice = await createUserWithToken(app);
    const bob = await createUserWithToken(app);
    const tags = new Set<string>();
    for (const { token } of [alice, bob]) {
      for (const path of [
        '/v1/my/anime/ratings',
        '/v1/my/manga/ratings',
        '/v1/my/anime/ratings?status=ongoing',
        '/v1/my/anime/ratings?limit=1',
        '/v1/my/anime/ratings?limit=1&after=1',
        '/v1/my/anime/1/ratings',
        '/v1/my/anime/2/ratings',
        '/v1/my/profile',
      ]) {
        tags.add(await etagOf(token, path));
      }
    }
    expect(tags.size).toBe(16);
  });

  it('a 304 passes the pipeline and counts against the rate limits', async () => {
    const limited = await createTestApp({ RATE_LIMIT_USER_LIMIT: '3' });
    try {
      const { token } = await createUserWithToken(limited);
      const first = await api(limited, token).get('/v1/my/anime/ratings').expect(200);
      const tag = first.headers.etag;
      const second = await api(limited, token)
        .get('/v1/my/anime/ratings')
        .set('If-None-Match', tag)
        .expect(304);
      expect(second.headers['ratelimit-remaining']).toBe('1');
      await api(limited, token).get('/v1/my/anime/ratings').set('If-None-Match', tag).expect(304);
      await api(limited, token).get('/v1/my/anime/ratings').set('If-None-Match', tag).expect(429);
      await api(limited).get('/v1/my/anime/ratings').set('If-None-Match', tag).expect(401);
    } finally {
      await limited.close();
    }
  });
});

describe('GET all options (status, limit, after, Link)', () => {
  let app: NestFastifyApplication;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp();
    await resetDatabase(app);
    await importTitles(app, TITLES);
    ({ token } = await createUserWithToken(app));
    const statuses = ['ongoing', 'completed', 'ongoing', 'dropped', 'ongoing'];
    for (const [index, status] of statuses.entries()) {
      await putEntry(app, token, 'anime', index + 1, { status });
    }
  });

  afterAll(async () => {
    await app.close();
  });

  const ids = (body: { id: number }[]) => body.map((entry) => entry.id);

  it('status keeps the entries with one of the statuses', async () => {
    const one = await api(app, token).get('/v1/my/anime/ratings?status=ongoing').expect(200);
    expect(ids(one.body)).toEqual([1, 3, 5]);
    const two = await api(app, token)
      .get('/v1/my/anime/ratings?status=dropped,completed')
      .expect(200);
    expect(ids(two.body)).toEqual([2, 4]);
    const none = await api(app, token).get('/v1/my/anime/ratings?status=bookmark').expect(200);
    expect(none.body).toEqual([]);
    const all = await api(app, token).get('/v1/my/anime/ratings').expect(200);
    expect(ids(all.body)).toEqual([1, 2, 3, 4, 5]);
    expect(all.headers.link).toBeUndefined();
  });

  it('limit and after page through the list; Link only while entries remain', async () => {
    const pages: number[][] = [];
    let path: string | undefined = '/v1/my/anime/ratings?limit=2';
    while (path) {
      const response = await api(app, token).get(path).expect(200);
      pages.push(ids(response.body));
      const link = response.headers.link as string | undefined;
      path = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
    }
    expect(pages).toEqual([[1, 2], [3, 4], [5]]);

    const exact = await api(app, token).get('/v1/my/anime/ratings?limit=2&after=3').expect(200);
    expect(ids(exact.body)).toEqual([4, 5]);
    expect(exact.headers.link).toBeUndefined();
    const filtered = await api(app, token)
      .get('/v1/my/anime/ratings?status=ongoing&limit=1')
      .expect(200);
    expect(ids(filtered.body)).toEqual([1]);
    expect(filtered.headers.link).toBe(
      '</v1/my/anime/ratings?status=ongoing&limit=1&after=1>; rel="next"',
    );
    const lastOngoing = await api(app, token)
      .get('/v1/my/anime/ratings?status=ongoing&limit=1&after=3')
      .expect(200);
    expect(ids(lastOngoing.body)).toEqual([5]);
    expect(lastOngoing.headers.link).toBeUndefined();
    const whole = await api(app, token).get('/v1/my/anime/ratings?limit=1000').expect(200);
    expect(ids(whole.body)).toEqual([1, 2, 3, 4, 5]);
  });

  it.each([
    ['status=', 'status'],
    ['status=watching', 'status'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=', 'limit'],
    ['after=2', 'after'],
    ['limit=1&after=-1', 'after'],
    ['use_external_id=yes', 'use_external_id'],
  ])('?%s is 400 naming %s', async (query, field) => {
    const response = await api(app, token).get(`/v1/my/anime/ratings?${query}`).expect(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });
});
