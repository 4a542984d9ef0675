import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { anime, createUserWithToken, importTitles, manga, putEntry } from './factories';
import { SyncPurgeService } from '../src/sync/sync-purge.service';
import { api, createTestApp, resetDatabase, USER_AGENT, useTestApp } from './utils/test-app';
import { sleep } from './utils/wait';

type Entry = { id: number } & Record<string, unknown>;
interface ChangesBody {
  changes: Entry[];
  deleted: { id: number; external_id: number | null }[];
  cursor: string;
  has_more: boolean;
}

/** A sync client as docs/sync.md describes it: keeps a mirror of the list and the last cursor. */
class MirrorClient {
  readonly mirror = new Map<number, Entry>();
  cursor: string | undefined;
  calls = 0;

  constructor(
    private readonly app: () => NestFastifyApplication,
    private readonly token: string,
    private readonly mediaType: 'anime' | 'manga' = 'anime',
    private readonly limit?: number,
  ) {}

  async sync(): Promise<void> {
    for (;;) {
      const query = new URLSearchParams();
      if (this.cursor !== undefined) query.set('since', this.cursor);
      if (this.limit !== undefined) query.set('limit', String(this.limit));
      const response = await api(this.app(), this.token)
        .get(`/v1/my/${this.mediaType}/changes?${query.toString()}`)
        .expect(200);
      this.calls += 1;
      const body = response.body as ChangesBody;
      expect(Object.keys(body)).toEqual(['changes', 'deleted', 'cursor', 'has_more']);
      const titles = [...body.changes, ...body.deleted].map((item) => item.id);
      expect(new Set(titles).size).toBe(titles.length);
      if (this.limit !== undefined) expect(titles.length).toBeLessThanOrEqual(this.limit);
      if (this.cursor === undefined) expect(body.deleted).toEqual([]);
      for (const entry of body.changes) this.mirror.set(entry.id, entry);
      for (const title of body.deleted) this.mirror.delete(title.id);
      this.cursor = body.cursor;
      if (!body.has_more) return;
    }
  }

  async expectMirrorsList(): Promise<void> {
    await this.sync();
    const list = await api(this.app(), this.token).get(`/v1/my/${this.mediaType}/ratings`);
    expect([...this.mirror.values()].sort((a, b) => a.id - b.id)).toEqual(list.body);
  }
}

describe('changes feed (incremental sync)', () => {
  let app: NestFastifyApplication;

  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, [
      ...[1, 2, 3, 4, 5, 6].map((id) => anime(id)),
      manga(1),
      manga(2, { externalId: null }),
    ]);
  });

  const put = (token: string, id: number, body: Record<string, unknown>, type = 'anime') =>
    api(app, token).put(`/v1/my/${type}/${id}/ratings`, body).expect(200);
  const remove = (token: string, id: number, type = 'anime') =>
    api(app, token).delete(`/v1/my/${type}/${id}/ratings`).expect(200);

  it.each([undefined, 1, 2])(
    'a client mirrors the list through every kind of write (limit %p)',
    async (limit) => {
      const { token } = await createUserWithToken(app);
      const client = new MirrorClient(() => app, token, 'anime', limit);
      await client.expectMirrorsList();
      expect(client.mirror.size).toBe(0);

      await put(token, 1, { status: 'ongoing' });
      await put(token, 2, { status: 'completed', public_rating: 8 });
      await put(token, 3, { status: 'bookmark' });
      await client.expectMirrorsList();
      expect(client.mirror.size).toBe(3);

      await put(token, 1, { status: 'ongoing', episodes_watched: 3 }); // no touch
      await put(token, 2, { status: 'completed', notes: 'again', touch: true });
      await client.expectMirrorsList();

      await put(token, 3, { status: 'bookmark' }); // changes nothing, still a write
      const before = client.calls;
      await client.sync();
      expect(client.calls).toBe(before + 1);

      await remove(token, 2);
      await client.expectMirrorsList();
      expect(client.mirror.has(2)).toBe(false);

      await remove(token, 3);
      await put(token, 3, { status: 'dropped' }); // deleted, then created again
      await put(token, 4, { status: 'ongoing' });
      await remove(token, 4); // created and deleted between two syncs
      await client.expectMirrorsList();
      expect(client.mirror.get(3)?.status).toBe('dropped');
      expect(client.mirror.has(4)).toBe(false);

      await put(token, 5, { status: 'ongoing' });
      await put(token, 6, { status: 'ongoing' });
      await remove(token, 1);
      await put(token, 5, { status: 'completed' });
      await client.expectMirrorsList();

      // A MyAnimeList import writes like PUTs: the mirror follows what it creates and updates.
      const imported = await request(app.getHttpServer())
        .post('/v1/my/anime/import')
        .set('User-Agent', USER_AGENT)
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/xml')
        .send(
          `<myanimelist><myinfo><user_export_type>1</user_export_type></myinfo>
          <anime><series_animedb_id>5002</series_animedb_id><my_status>Watching</my_status></anime>
          <anime><series_animedb_id>5005</series_animedb_id><my_status>Dropped</my_status><update_on_import>1</update_on_import></anime>
          <anime><series_animedb_id>5006</series_animedb_id><my_status>Dropped</my_status><update_on_import>0</update_on_import></anime>
          </myanimelist>`,
        )
        .expect(200);
      expect(imported.body).toEqual({ created: 1, updated: 1, unchanged: 1, skipped: [] });
      await client.expectMirrorsList();
      expect(client.mirror.get(2)?.status).toBe('ongoing');
      expect(client.mirror.get(5)?.status).toBe('dropped');
      expect(client.mirror.get(6)?.status).toBe('ongoing');

      // A second client starting now gets the same list.
      const fresh = new MirrorClient(() => app, token, 'anime', limit);
      await fresh.expectMirrorsList();
      expect(fresh.mirror).toEqual(client.mirror);
    },
  );

  it('reports a deletion once, with the external id, and then nothing while nothing changes', async () => {
    const { token } = await createUserWithToken(app);
    await put(token, 2, { status: 'ongoing' }, 'manga');
    await put(token, 1, { status: 'ongoing' }, 'manga');
    const first = await api(app, token).get('/v1/my/manga/changes').expect(200);
    expect(first.body.changes.map((e: Entry) => e.id)).toEqual([2, 1]);
    expect(first.body.has_more).toBe(false);

    await remove(token, 1, 'manga');
    await remove(token, 2, 'manga');
    const second = await api(app, token)
      .get(`/v1/my/manga/changes?since=${first.body.cursor}`)
      .expect(200);
    expect(second.body).toMatchObject({
      changes: [],
      deleted: [
        { id: 1, external_id: 9001 },
        { id: 2, external_id: null },
      ],
      has_more: false,
    });

    const third = await api(app, token)
      .get(`/v1/my/manga/changes?since=${second.body.cursor}`)
      .expect(200);
    expect(third.body).toMatchObject({ changes: [], deleted: [], has_more: false });
    // Any cursor can be used again, and the one of an empty answer still works.
    await api(app, token).get(`/v1/my/manga/changes?since=${first.body.cursor}`).expect(200);
    await put(token, 1, { status: 'completed' }, 'manga');
    const fourth = await api(app, token)
      .get(`/v1/my/manga/changes?since=${third.body.cursor}`)
      .expect(200);
    expect(fourth.body.changes.map((e: Entry) => [e.id, e.status])).toEqual([[1, 'completed']]);
  });

  it('has_more is true exactly when items remain', async () => {
    const { token } = await createUserWithToken(app);
    await put(token, 1, { status: 'ongoing' });
    await put(token, 2, { status: 'ongoing' });
    const page = await api(app, token).get('/v1/my/anime/changes?limit=2').expect(200);
    expect(page.body.changes).toHaveLength(2);
    expect(page.body.has_more).toBe(false);
    const one = await api(app, token).get('/v1/my/anime/changes?limit=1').expect(200);
    expect(one.body.has_more).toBe(true);
    const rest = await api(app, token)
      .get(`/v1/my/anime/changes?limit=1&since=${one.body.cursor}`)
      .expect(200);
    expect(rest.body.changes.map((e: Entry) => e.id)).toEqual([2]);
    expect(rest.body.has_more).toBe(false);
  });

  it('follows concurrent writes without missing any', async () => {
    const { token } = await createUserWithToken(app);
    const client = new MirrorClient(() => app, token, 'anime', 2);
    const writes = [1, 2, 3, 4, 5, 6].flatMap((id) => [
      put(token, id, { status: 'ongoing', episodes_watched: id }),
      client.sync(),
    ]);
    await Promise.all(writes);
    await client.expectMirrorsList();
    expect(client.mirror.size).toBe(6);
  });

  it('refuses cursors of other users, other media types, altered ones and bad limits', async () => {
    const alice = await createUserWithToken(app);
    const bob = await createUserWithToken(app);
    const aliceAnime = (await api(app, alice.token).get('/v1/my/anime/changes').expect(200)).body
      .cursor as string;
    const [payload, signature] = aliceAnime.split('.');
    const altered = `${Buffer.from(
      Buffer.from(payload, 'base64url')
        .toString()
        .replace(/\.(\d+)$/, '.1$1'),
    ).toString('base64url')}.${signature}`;
    for (const [token, path] of [
      [bob.token, `/v1/my/anime/changes?since=${aliceAnime}`],
      [alice.token, `/v1/my/manga/changes?since=${aliceAnime}`],
      [alice.token, `/v1/my/anime/changes?since=${altered}`],
      [alice.token, '/v1/my/anime/changes?since=garbage'],
      [alice.token, '/v1/my/anime/changes?since='],
      [alice.token, '/v1/my/anime/changes?limit=0'],
      [alice.token, '/v1/my/anime/changes?limit=1001'],
      [alice.token, '/v1/my/anime/changes?limit=ten'],
      [alice.token, '/v1/my/anime/changes?limit=1&limit=2'],
    ]) {
      const response = await api(app, token).get(path).expect(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body.errors[0].field).toMatch(/^(since|limit)$/);
    }
    await api(app, alice.token).get('/v1/my/anime/changes?limit=1000').expect(200);
    await api(app, alice.token).get(`/v1/my/anime/changes?since=${aliceAnime}`).expect(200);
  });

  it('purges deletions once they are older than the retention', async () => {
    const { token } = await createUserWithToken(app);
    const first = await api(app, token).get('/v1/my/anime/changes').expect(200);
    await put(token, 1, { status: 'ongoing' });
    await remove(token, 1);
    const purge = app.get(SyncPurgeService);
    expect(await purge.purge()).toBe(0);
    const kept = await api(app, token)
      .get(`/v1/my/anime/changes?since=${first.body.cursor}`)
      .expect(200);
    expect(kept.body.deleted).toEqual([{ id: 1, external_id: 5001 }]);
    expect(await purge.purge(Date.now() + 29 * 86_400_000)).toBe(0);
    expect(await purge.purge(Date.now() + 31 * 86_400_000)).toBe(1);
    const purged = await api(app, token)
      .get(`/v1/my/anime/changes?since=${first.body.cursor}`)
      .expect(200);
    expect(purged.body.deleted).toEqual([]);
  });

  it('goes through the pipeline: unknown media type 404, scope 403', async () => {
    const { token } = await createUserWithToken(app, ['ratings.manga']);
    await api(app, token).get('/v1/my/books/changes').expect(404);
    await api(app, token).get('/v1/my/anime/changes').expect(403);
    await api(app).get('/v1/my/anime/changes').expect(401);
  });
});

describe('changes feed across instances and time', () => {
  let one: NestFastifyApplication;
  let two: NestFastifyApplication;

  beforeAll(async () => {
    // 0.0001 days is 8.64 seconds.
    one = await createTestApp({ SYNC_RETENTION_DAYS: '0.0001' });
    two = await createTestApp({ SYNC_RETENTION_DAYS: '0.0001' });
  });

  afterAll(async () => {
    await one.close();
    await two.close();
  });

  beforeEach(async () => {
    await resetDatabase(one);
    await importTitles(one, [anime(1), anime(2), anime(3)]);
  });

  it('two instances serve one cursor interchangeably', async () => {
    const { token } = await createUserWithToken(one);
    let current = one;
    const client = new MirrorClient(() => current, token, 'anime', 1);
    await putEntry(one, token, 'anime', 1);
    await putEntry(two, token, 'anime', 2);
    await client.expectMirrorsList();
    current = two;
    await api(one, token).delete('/v1/my/anime/1/ratings').expect(200);
    await putEntry(one, token, 'anime', 3);
    await client.expectMirrorsList();
    expect([...client.mirror.keys()].sort()).toEqual([2, 3]);

    // A process started later (a restart) reads the signing key from the database too.
    const restarted = await createTestApp({ SYNC_RETENTION_DAYS: '0.0001' });
    try {
      await api(one, token).delete('/v1/my/anime/2/ratings').expect(200);
      current = restarted;
      await client.expectMirrorsList();
      expect([...client.mirror.keys()]).toEqual([3]);
    } finally {
      await restarted.close();
    }
  });

  it('answers 410 to a cursor issued longer ago than the retention; a chain counts from its start', async () => {
    const { token } = await createUserWithToken(one);
    for (const id of [1, 2, 3]) {
      await putEntry(one, token, 'anime', id);
    }
    const start = await api(one, token).get('/v1/my/anime/changes?limit=1').expect(200);
    expect(start.body.has_more).toBe(true);
    const done = await api(one, token).get('/v1/my/anime/changes').expect(200);
    await sleep(5000);
    const middle = await api(two, token)
      .get(`/v1/my/anime/changes?limit=1&since=${start.body.cursor}`)
      .expect(200);
    expect(middle.body.has_more).toBe(true);
    const caughtUp = await api(two, token)
      .get(`/v1/my/anime/changes?since=${done.body.cursor}`)
      .expect(200);
    expect(caughtUp.body.has_more).toBe(false);
    await sleep(5000);

    for (const cursor of [start.body.cursor, middle.body.cursor, done.body.cursor]) {
      const expired = await api(one, token).get(`/v1/my/anime/changes?since=${cursor}`).expect(410);
      expect(expired.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    // Issued 5 s ago (has_more false): still good.
    await api(two, token).get(`/v1/my/anime/changes?since=${caughtUp.body.cursor}`).expect(200);
  });
});
