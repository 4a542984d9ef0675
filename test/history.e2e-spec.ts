import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { TokensService } from '../src/auth/tokens.service';
import { ALL_SCOPES, SCOPES } from '../src/auth/scopes';
import { ClientsService } from '../src/oauth/clients.service';
import { anime, createUser, createUserWithToken, importTitles, manga } from './factories';
import { freePort, runCli } from './utils/cli';
import { api, createTestApp, resetDatabase, USER_AGENT, useTestApp } from './utils/test-app';
import { serverIsLive, sleep } from './utils/wait';

type Json = Record<string, unknown>;
type Event = Json & { id: number; at: string };

const MS_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** An event without what a test cannot know in advance (its id and time). */
const shape = ({ id: _id, at: _at, ...rest }: Event) => rest;

describe('history (contract §20)', () => {
  let app: NestFastifyApplication;
  let token: string;
  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, [
      anime(1),
      anime(2),
      anime(3),
      manga(1),
      manga(2, { chapters: null, volumes: null }),
    ]);
    ({ token } = await createUserWithToken(app));
  });

  const put = (mediaType: string, id: number, body: Json, as = token) =>
    api(app, as).put(`/v1/my/${mediaType}/${id}/ratings`, body).expect(200);
  const read = async (path: string, as = token): Promise<Event[]> =>
    (await api(app, as).get(path).expect(200)).body as Event[];
  const history = (mediaType: string, query = '') => read(`/v1/my/${mediaType}/history${query}`);
  const titleHistory = (mediaType: string, id: number, query = '') =>
    read(`/v1/my/${mediaType}/${id}/history${query}`);
  const viewings = (mediaType: string, id: number) => read(`/v1/my/${mediaType}/${id}/viewings`);
  const latest = async (mediaType: string, id: number) => (await titleHistory(mediaType, id))[0];

  describe('the life of an entry', () => {
    it('anime: exactly the events and viewings of each write', async () => {
      const events: Json[] = [];
      const expectEvents = async () => {
        const all = await titleHistory('anime', 1);
        expect(all.map(shape)).toEqual([...events].reverse());
        for (let i = 1; i < all.length; i++) expect(all[i].id).toBeLessThan(all[i - 1].id);
        for (const event of all) expect(event.at).toMatch(MS_ISO);
        return all;
      };
      const base = { title_id: 1, external_id: 5001, source: 'api', client: null };

      // Created as plan-to-watch: an event, no viewing.
      await put('anime', 1, { status: 'bookmark' });
      events.push({ ...base, viewing: null, status: { from: null, to: 'bookmark' } });
      await expectEvents();
      expect(await viewings('anime', 1)).toEqual([]);

      // Progress opens viewing 1 at the write's commit time.
      await put('anime', 1, { status: 'ongoing', episodes_watched: 3 });
      events.push({
        ...base,
        viewing: 1,
        status: { from: 'bookmark', to: 'ongoing' },
        episodes_watched: { from: 0, to: 3 },
      });
      const [opened] = await expectEvents();
      expect(await viewings('anime', 1)).toEqual([
        {
          number: 1,
          started_at: opened.at,
          finished_at: null,
          state: 'open',
          score: null,
          progress: 3,
        },
      ]);

      // A score alone.
      await put('anime', 1, { status: 'ongoing', public_rating: 8, public_fraction: 5 });
      events.push({ ...base, viewing: 1, score: { from: 0, to: 85 } });
      await expectEvents();

      // Notes only, `touch` only, dates only: no event.
      await put('anime', 1, { status: 'ongoing', notes: 'great' });
      await put('anime', 1, { status: 'ongoing', touch: true });
      await put('anime', 1, { status: 'ongoing', priority: 2, start_date: '2026-01-01' });
      await expectEvents();

      // Completed with an end_date: viewing 1 finished on that date, with the entry's score.
      await put('anime', 1, {
        status: 'completed',
        episodes_watched: 24,
        end_date: '2026-11-20',
      });
      events.push({
        ...base,
        viewing: 1,
        status: { from: 'ongoing', to: 'completed' },
        episodes_watched: { from: 3, to: 24 },
      });
      await expectEvents();
      const first = {
        number: 1,
        started_at: opened.at,
        finished_at: '2026-11-20T00:00:00Z',
        state: 'finished',
        score: 85,
        progress: 24,
      };
      expect(await viewings('anime', 1)).toEqual([first]);

      // A late score (within 24 hours, no viewing opened since) updates the closed viewing.
      await put('anime', 1, { status: 'completed', public_rating: 9, public_fraction: 0 });
      events.push({ ...base, viewing: 1, score: { from: 85, to: 90 } });
      await expectEvents();
      first.score = 90;
      expect(await viewings('anime', 1)).toEqual([first]);

      // Rewatch via is_rewatching: viewing 2 opens from the progress this write leaves.
      await put('anime', 1, {
        status: 'completed',
        is_rewatching: true,
        episodes_watched: 2,
        start_date: '2026-11-25',
        end_date: null,
      });
      events.push({ ...base, viewing: 2, episodes_watched: { from: 24, to: 2 } });
      await expectEvents();
      const second = {
        number: 2,
        started_at: '2026-11-25T00:00:00Z',
        finished_at: null,
        state: 'open',
        score: null,
        progress: 2,
      };
      expect(await viewings('anime', 1)).toEqual([first, second]);

      // Progress while open raises the viewing's progress; is_rewatching back to false finishes it.
      await put('anime', 1, { status: 'completed', episodes_watched: 20 });
      events.push({ ...base, viewing: 2, episodes_watched: { from: 2, to: 20 } });
      await put('anime', 1, { status: 'completed', is_rewatching: false, episodes_watched: 12 });
      events.push({ ...base, viewing: 2, episodes_watched: { from: 20, to: 12 } });
      const [closing] = await expectEvents();
      Object.assign(second, {
        state: 'finished',
        finished_at: closing.at,
        score: 90,
        progress: 20,
      });
      expect(await viewings('anime', 1)).toEqual([first, second]);

      // Rewatch via completed -> ongoing: viewing 3 by rule 2.
      await put('anime', 1, { status: 'ongoing', episodes_watched: 5 });
      events.push({
        ...base,
        viewing: 3,
        status: { from: 'completed', to: 'ongoing' },
        episodes_watched: { from: 12, to: 5 },
      });
      const [third] = await expectEvents();

      // on_hold changes nothing of viewings; dropped abandons the open one.
      await put('anime', 1, { status: 'on_hold' });
      events.push({ ...base, viewing: 3, status: { from: 'ongoing', to: 'on_hold' } });
      await put('anime', 1, { status: 'dropped' });
      events.push({ ...base, viewing: 3, status: { from: 'on_hold', to: 'dropped' } });
      const [dropped] = await expectEvents();
      expect(await viewings('anime', 1)).toEqual([
        first,
        second,
        {
          number: 3,
          started_at: third.at,
          finished_at: dropped.at,
          state: 'abandoned',
          score: 90,
          progress: 5,
        },
      ]);

      // Resuming a dropped title opens viewing 4.
      await put('anime', 1, { status: 'ongoing' });
      events.push({ ...base, viewing: 4, status: { from: 'dropped', to: 'ongoing' } });
      await expectEvents();
      expect((await viewings('anime', 1)).map((v) => [v.number, v.state])).toEqual([
        [1, 'finished'],
        [2, 'finished'],
        [3, 'abandoned'],
        [4, 'open'],
      ]);

      // The list's history holds the same events; another title's too.
      await put('anime', 2, { status: 'completed', episodes_watched: 24, public_rating: 7 });
      const all = await history('anime');
      expect(all.filter((e) => e.title_id === 1)).toEqual(await titleHistory('anime', 1));
      expect(shape(all[0])).toEqual({
        title_id: 2,
        external_id: 5002,
        source: 'api',
        client: null,
        viewing: 1,
        status: { from: null, to: 'completed' },
        episodes_watched: { from: null, to: 24 },
        score: { from: null, to: 70 },
      });
      expect(await viewings('anime', 2)).toEqual([
        {
          number: 1,
          started_at: all[0].at,
          finished_at: all[0].at,
          state: 'finished',
          score: 70,
          progress: 24,
        },
      ]);

      // Deleting the entry deletes its history and viewings, and nothing else.
      await api(app, token).delete('/v1/my/anime/1/ratings').expect(200);
      expect(await titleHistory('anime', 1)).toEqual([]);
      expect(await viewings('anime', 1)).toEqual([]);
      expect((await history('anime')).map((e) => e.title_id)).toEqual([2]);
      // Created again: a new life from viewing 1.
      await put('anime', 1, { status: 'ongoing', episodes_watched: 1 });
      expect((await viewings('anime', 1)).map((v) => v.number)).toEqual([1]);
      expect(await history('manga')).toEqual([]);
    });

    it('manga: chapters and volumes, is_rereading, progress from volumes when chapters stay 0', async () => {
      const base = { title_id: 1, external_id: 9001, source: 'api', client: null };
      await put('manga', 1, { status: 'ongoing', chapters_read: 5 });
      await put('manga', 1, { status: 'ongoing', volumes_read: 1 });
      await put('manga', 1, { status: 'ongoing', notes: 'n' });
      await put('manga', 1, { status: 'completed', chapters_read: 100, volumes_read: 10 });
      await put('manga', 1, { status: 'completed', is_rereading: true, chapters_read: 0 });
      await put('manga', 1, { status: 'completed', is_rereading: false, chapters_read: 0 });
      const events = await titleHistory('manga', 1);
      expect(events.map(shape)).toEqual(
        [
          {
            ...base,
            viewing: 1,
            status: { from: null, to: 'ongoing' },
            chapters_read: { from: null, to: 5 },
          },
          { ...base, viewing: 1, volumes_read: { from: 0, to: 1 } },
          {
            ...base,
            viewing: 1,
            status: { from: 'ongoing', to: 'completed' },
            chapters_read: { from: 5, to: 100 },
            volumes_read: { from: 1, to: 10 },
          },
          { ...base, viewing: 2, chapters_read: { from: 100, to: 0 } },
        ].reverse(),
      );
      const read = await viewings('manga', 1);
      expect(
        read.map(({ number, state, progress, score }) => ({ number, state, progress, score })),
      ).toEqual([
        { number: 1, state: 'finished', progress: 100, score: null },
        // Chapters 0 through the reread: progress counts volumes (10).
        { number: 2, state: 'finished', progress: 10, score: null },
      ]);
      expect(read[1].finished_at).toMatch(MS_ISO);

      await put('manga', 2, { status: 'on_hold', volumes_read: 2 });
      expect(await viewings('manga', 2)).toEqual([
        expect.objectContaining({ number: 1, state: 'open', progress: 2 }),
      ]);
      await put('manga', 2, { status: 'dropped', volumes_read: 3 });
      expect(await viewings('manga', 2)).toEqual([
        expect.objectContaining({ number: 1, state: 'abandoned', progress: 3 }),
      ]);
      expect(await viewings('anime', 1)).toEqual([]);
    });

    it('names the OAuth client of a code-flow token, and none for CLI tokens or imports', async () => {
      const user = await createUser(app);
      const { client } = await app.get(ClientsService).create({
        name: 'ListSync',
        redirectUris: ['https://listsync.example/callback'],
        isPublic: true,
      });
      const { token: clientToken } = await app
        .get(TokensService)
        .issue(user.name, ALL_SCOPES.join(' '), 3600, client.clientId);
      await put('anime', 1, { status: 'ongoing' }, clientToken);
      expect((await read('/v1/my/anime/history', clientToken))[0]).toMatchObject({
        source: 'api',
        client: 'ListSync',
      });

      const file = [
        '<?xml version="1.0" encoding="UTF-8" ?><myanimelist>',
        '<myinfo><user_id>1</user_id><user_name>x</user_name><user_export_type>1</user_export_type></myinfo>',
        '<anime><series_animedb_id>5002</series_animedb_id><my_status>Completed</my_status>',
        '<my_watched_episodes>24</my_watched_episodes><my_score>8</my_score>',
        '<my_start_date>2026-10-01</my_start_date><my_finish_date>0000-00-00</my_finish_date>',
        '<update_on_import>1</update_on_import></anime></myanimelist>',
      ].join('');
      await request(app.getHttpServer())
        .post('/v1/my/anime/import')
        .set('User-Agent', USER_AGENT)
        .set('Authorization', `Bearer ${clientToken}`)
        .set('Content-Type', 'application/xml')
        .send(file)
        .expect(200);
      const imported = (await read('/v1/my/anime/2/history', clientToken))[0];
      expect(shape(imported)).toEqual({
        title_id: 2,
        external_id: 5002,
        source: 'import',
        client: null,
        viewing: 1,
        status: { from: null, to: 'completed' },
        episodes_watched: { from: null, to: 24 },
        score: { from: null, to: 80 },
      });
      // An imported entry's viewing is dated from its fields: no end_date, so its updated_at.
      const [entry] = (await read('/v1/my/anime/2/ratings', clientToken)) as unknown as {
        updated_at: string;
      }[];
      expect(await read('/v1/my/anime/2/viewings', clientToken)).toEqual([
        {
          number: 1,
          started_at: '2026-10-01T00:00:00Z',
          finished_at: entry.updated_at,
          state: 'finished',
          score: 80,
          progress: 24,
        },
      ]);
    });

    it('gives an entry written before 1.2 the viewing its fields call for, and keeps it on writes', async () => {
      await put('anime', 1, { status: 'completed', episodes_watched: 24, public_rating: 6 });
      await put('anime', 2, { status: 'ongoing', episodes_watched: 4, start_date: '2025-05-01' });
      await put('anime', 3, { status: 'bookmark' });
      // As a 1.1 instance left them: entries without history.
      const db = app.get(DataSource);
      await db.query('DELETE FROM history_events');
      await db.query('DELETE FROM history_viewings');
      const [entry] = (await api(app, token).get('/v1/my/anime/1/ratings').expect(200))
        .body as Json[];
      const legacy = {
        number: 1,
        started_at: entry.created_at,
        finished_at: entry.updated_at,
        state: 'finished',
        score: 60,
        progress: 24,
      };
      expect(await viewings('anime', 1)).toEqual([legacy]);
      expect(await viewings('anime', 2)).toEqual([
        expect.objectContaining({ started_at: '2025-05-01T00:00:00Z', state: 'open', progress: 4 }),
      ]);
      expect(await viewings('anime', 3)).toEqual([]);
      // The next write stores it first, then applies the rules: completed -> ongoing is viewing 2.
      await put('anime', 1, { status: 'ongoing', episodes_watched: 1 });
      expect((await viewings('anime', 1)).map((v) => [v.number, v.state])).toEqual([
        [1, 'finished'],
        [2, 'open'],
      ]);
      expect((await viewings('anime', 1))[0]).toEqual(legacy);
      expect((await latest('anime', 1)).viewing).toBe(2);
    });
  });

  describe('reads', () => {
    it('pages with Link until no event remains, visiting each once', async () => {
      for (let n = 1; n <= 9; n++) {
        await put('anime', 1 + (n % 3), { status: 'ongoing', episodes_watched: n });
      }
      const all = await history('anime');
      expect(all).toHaveLength(9);
      for (const [path, expected] of [
        ['/v1/my/anime/history?limit=4', all],
        ['/v1/my/anime/history?limit=3', all],
        ['/v1/my/anime/2/history?limit=2', all.filter((e) => e.title_id === 2)],
      ] as const) {
        const seen: Event[] = [];
        let next: string | null = path;
        let pages = 0;
        while (next) {
          const response = await api(app, token).get(next).expect(200);
          seen.push(...(response.body as Event[]));
          const link = response.headers.link as string | undefined;
          next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
          if (next) expect(next).toContain(`before=${seen[seen.length - 1].id}`);
          pages++;
        }
        expect(seen).toEqual(expected);
        expect(pages).toBe(Math.ceil(expected.length / Number(/limit=(\d+)/.exec(path)![1])));
      }
      const byExternalId = await api(app, token)
        .get('/v1/my/anime/5002/history?use_external_id=true&limit=1&from=2000-01-01')
        .expect(200);
      const ofTitle = all.filter((e) => e.title_id === 2);
      expect(byExternalId.body).toEqual(ofTitle.slice(0, 1));
      expect(byExternalId.headers.link).toBe(
        `</v1/my/anime/5002/history?limit=1&from=2000-01-01&use_external_id=true&before=${ofTitle[0].id}>; rel="next"`,
      );
      // A full last page has no Link.
      const exact = await api(app, token).get('/v1/my/anime/history?limit=9').expect(200);
      expect(exact.headers.link).toBeUndefined();
      const before = await history('anime', `?before=${all[2].id}`);
      expect(before).toEqual(all.slice(3));
      expect(await history('anime', '?before=9223372036854775807')).toEqual(all);
    });

    it('answers 304 to the ETag of an unchanged history, and a new ETag after a write', async () => {
      await put('anime', 1, { status: 'ongoing' });
      const paths = ['/v1/my/anime/history', '/v1/my/anime/1/history', '/v1/my/anime/1/viewings'];
      for (const [i, path] of paths.entries()) {
        const first = await api(app, token).get(path).expect(200);
        const etag = first.headers.etag;
        expect(etag).toMatch(/^"/);
        await api(app, token).get(path).set('If-None-Match', etag).expect(304);
        await put('anime', 1, { status: 'ongoing', episodes_watched: i + 1 });
        const after = await api(app, token).get(path).set('If-None-Match', etag).expect(200);
        expect(after.headers.etag).not.toBe(etag);
      }
      // Deleting an event is no entry write, and still a new page under a new tag.
      const page = await api(app, token).get('/v1/my/anime/history').expect(200);
      const [latest] = page.body as { id: number }[];
      await api(app, token).delete(`/v1/my/anime/1/history/${latest.id}`).expect(200);
      const next = await api(app, token)
        .get('/v1/my/anime/history')
        .set('If-None-Match', page.headers.etag)
        .expect(200);
      expect((next.body as { id: number }[]).map((event) => event.id)).not.toContain(latest.id);
    });

    it('an unknown title is 404 with no ETag, even to If-None-Match: * (no 304)', async () => {
      for (const path of ['/v1/my/anime/77777/history', '/v1/my/anime/77777/viewings']) {
        const plain = await api(app, token).get(path).expect(404);
        expect(plain.headers.etag).toBeUndefined();
        const conditional = await api(app, token).get(path).set('If-None-Match', '*').expect(404);
        expect(conditional.headers.etag).toBeUndefined();
      }
      // A title without an entry: an empty page, tagged, and still 304 to its tag.
      const empty = await api(app, token).get('/v1/my/anime/3/history').expect(200);
      expect(empty.body).toEqual([]);
      await api(app, token)
        .get('/v1/my/anime/3/history')
        .set('If-None-Match', empty.headers.etag)
        .expect(304);
    });

    it.each([
      ['/v1/my/anime/history?limit=0', 'limit'],
      ['/v1/my/anime/history?limit=1001', 'limit'],
      ['/v1/my/anime/history?limit=abc', 'limit'],
      ['/v1/my/anime/history?limit=', 'limit'],
      ['/v1/my/anime/history?before=0', 'before'],
      ['/v1/my/anime/history?before=-1', 'before'],
      ['/v1/my/anime/history?before=9223372036854775808', 'before'],
      ['/v1/my/anime/history?from=2026-02-30', 'from'],
      ['/v1/my/anime/history?to=yesterday', 'to'],
      ['/v1/my/anime/history?from=2026-03-02&to=2026-03-01', 'from'],
      ['/v1/my/anime/1/history?limit=x', 'limit'],
      ['/v1/my/anime/0/history', 'id'],
      ['/v1/my/manga/1/viewings?use_external_id=yes', 'use_external_id'],
    ])('GET %s is 400 naming %s', async (path, field) => {
      const response = await api(app, token).get(path).expect(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect((response.body as { errors: { field: string }[] }).errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ field })]),
      );
    });

    it('is 404 for an unknown title, [] for a known title without entry, and works by external id', async () => {
      await api(app, token).get('/v1/my/anime/999/history').expect(404);
      await api(app, token).get('/v1/my/anime/999/viewings').expect(404);
      await api(app, token).get('/v1/my/anime/1/history?use_external_id=true').expect(404);
      expect(await titleHistory('anime', 3)).toEqual([]);
      expect(await viewings('anime', 3)).toEqual([]);
      await put('anime', 3, { status: 'ongoing' });
      expect(await read('/v1/my/anime/5003/history?use_external_id=true')).toEqual(
        await titleHistory('anime', 3),
      );
      expect(await read('/v1/my/anime/5003/viewings?use_external_id=true')).toHaveLength(1);
      await api(app, token).get('/v1/my/books/history').expect(404);
    });

    it('needs the scope of the media type', async () => {
      const { token: mangaOnly } = await createUserWithToken(app, [SCOPES.manga]);
      await api(app, mangaOnly).get('/v1/my/anime/history').expect(403);
      await api(app, mangaOnly).get('/v1/my/manga/history').expect(200);
      await api(app, mangaOnly).get('/v1/my/anime/1/viewings').expect(403);
    });

    it('takes from/to as days in the time zone of the settings', async () => {
      await put('anime', 1, { status: 'ongoing' });
      await put('anime', 1, { status: 'ongoing', episodes_watched: 1 });
      // 23:30 UTC on 10 March is 00:30 on 11 March in Berlin (UTC+1 then).
      const [newest, oldest] = await history('anime');
      await app
        .get(DataSource)
        .query('UPDATE history_events SET at_ms = ? WHERE id = ?', [
          Date.UTC(2026, 2, 10, 23, 30),
          newest.id,
        ]);
      await app
        .get(DataSource)
        .query('UPDATE history_events SET at_ms = ? WHERE id = ?', [
          Date.UTC(2026, 2, 9, 12, 0),
          oldest.id,
        ]);
      const ids = async (query: string) => (await history('anime', query)).map((e) => e.id);
      expect(await ids('?from=2026-03-10&to=2026-03-10')).toEqual([newest.id]);
      expect(await ids('?from=2026-03-11')).toEqual([]);

      await api(app, token)
        .put('/v1/my/settings', { time_zone: 'Europe/Berlin' })
        .expect(200, { time_zone: 'Europe/Berlin', card: false });
      expect(await ids('?from=2026-03-10&to=2026-03-10')).toEqual([]);
      expect(await ids('?from=2026-03-11&to=2026-03-11')).toEqual([newest.id]);
      expect(await ids('?to=2026-03-10')).toEqual([oldest.id]);
      expect(await ids('?from=2026-03-09')).toEqual([newest.id, oldest.id]);
      expect((await history('anime', '?from=2026-03-11'))[0].at).toBe('2026-03-10T23:30:00.000Z');
    });
  });

  describe('repairs', () => {
    it("deletes one event and keeps the entry and viewings; another user's event is 404", async () => {
      await put('anime', 1, { status: 'ongoing', episodes_watched: 2 });
      await put('anime', 1, { status: 'ongoing', episodes_watched: 4 });
      const [newest, oldest] = await titleHistory('anime', 1);
      const before = await viewings('anime', 1);

      const other = await createUserWithToken(app);
      await put('anime', 1, { status: 'ongoing' }, other.token);
      for (const path of [
        `/v1/my/anime/1/history/${newest.id}`,
        `/v1/my/anime/2/history/${newest.id}`,
      ]) {
        await api(app, other.token).delete(path).expect(404);
      }
      await request(app.getHttpServer())
        .post(`/v1/my/anime/1/history/${newest.id}/revert`)
        .set('User-Agent', USER_AGENT)
        .set('Authorization', `Bearer ${other.token}`)
        .expect(404);
      await api(app, token).delete('/v1/my/anime/1/history/abc').expect(400);
      await api(app, token).delete('/v1/my/anime/1/history/99999999999').expect(404);
      await api(app, token).delete('/v1/my/anime/999/history/1').expect(404);

      await api(app, token)
        .delete(`/v1/my/anime/5001/history/${oldest.id}?use_external_id=true`)
        .expect(200, { success: true });
      expect(await titleHistory('anime', 1)).toEqual([newest]);
      expect(await viewings('anime', 1)).toEqual(before);
      await api(app, token).delete(`/v1/my/anime/1/history/${oldest.id}`).expect(404);
      expect(await titleHistory('anime', 1, '')).toHaveLength(1);
      expect(await read('/v1/my/anime/1/history', other.token)).toHaveLength(1);
    });

    it('reverts the latest event through the write path; 409 for an older one; a creation deletes', async () => {
      const revert = (id: number, mediaType = 'anime', title = 1) =>
        request(app.getHttpServer())
          .post(`/v1/my/${mediaType}/${title}/history/${id}/revert`)
          .set('User-Agent', USER_AGENT)
          .set('Authorization', `Bearer ${token}`);
      await put('anime', 1, { status: 'ongoing', episodes_watched: 3 });
      await put('anime', 1, {
        status: 'completed',
        episodes_watched: 24,
        public_rating: 8,
        public_fraction: 5,
        notes: 'kept',
      });
      const [completed, created] = await titleHistory('anime', 1);
      const conflict = await revert(created.id).expect(409);
      expect(conflict.headers['content-type']).toContain('application/problem+json');
      expect(conflict.body).toMatchObject({
        type: 'https://ratings.example/problems/conflict',
        title: 'Conflict',
      });

      await revert(completed.id).expect(200, { success: true });
      const [entry] = (await api(app, token).get('/v1/my/anime/1/ratings').expect(200))
        .body as Json[];
      expect(entry).toMatchObject({
        status: 'ongoing',
        episodes_watched: 3,
        public_rating: 0,
        public_fraction: 0,
        notes: 'kept',
      });
      const [undo] = await titleHistory('anime', 1);
      expect(shape(undo)).toEqual({
        title_id: 1,
        external_id: 5001,
        source: 'api',
        client: null,
        viewing: 2,
        status: { from: 'completed', to: 'ongoing' },
        episodes_watched: { from: 24, to: 3 },
        score: { from: 85, to: 0 },
      });

      // The creation event of manga 1, latest of its title: reverting it deletes the entry.
      await put('manga', 1, { status: 'ongoing', chapters_read: 4 });
      const [creation] = await titleHistory('manga', 1);
      await revert(creation.id, 'manga', 1).expect(200);
      expect((await api(app, token).get('/v1/my/manga/1/ratings').expect(200)).body).toEqual([]);
      expect(await titleHistory('manga', 1)).toEqual([]);
      expect(await viewings('manga', 1)).toEqual([]);
      await revert(creation.id, 'manga', 1).expect(404);
    });
  });

  describe('settings', () => {
    it('has defaults, keeps omitted members, and refuses what is not a setting', async () => {
      await api(app, token).get('/v1/my/settings').expect(200, { time_zone: 'UTC', card: false });
      await api(app, token)
        .put('/v1/my/settings', { card: true })
        .expect(200, { time_zone: 'UTC', card: true });
      await api(app, token)
        .put('/v1/my/settings', { time_zone: 'America/Port-au-Prince' })
        .expect(200, { time_zone: 'America/Port-au-Prince', card: true });
      for (const [body, field] of [
        [{ time_zone: 'Mars/Olympus' }, 'time_zone'],
        [{ time_zone: 'europe/berlin' }, 'time_zone'],
        [{ time_zone: '+01:00' }, 'time_zone'],
        [{ time_zone: null }, 'time_zone'],
        [{ card: 'yes' }, 'card'],
        [{ theme: 'dark' }, 'theme'],
      ] as const) {
        const response = await api(app, token).put('/v1/my/settings', body).expect(400);
        expect((response.body as { errors: { field: string }[] }).errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ field })]),
        );
      }
      await api(app, token)
        .put('/v1/my/settings')
        .set('Content-Type', 'text/plain')
        .send('x')
        .expect(415);
      await api(app, token).get('/v1/my/settings').expect(200, {
        time_zone: 'America/Port-au-Prince',
        card: true,
      });
      const { token: animeOnly } = await createUserWithToken(app, [SCOPES.anime]);
      await api(app, animeOnly).get('/v1/my/settings').expect(403);
    });
  });

  describe('export and erasure', () => {
    it('users export holds the history and viewings; users delete removes them', async () => {
      const owner = await createUser(app, 'historian');
      const own = await app.get(TokensService).issue(owner.name, ALL_SCOPES.join(' '));
      await put('anime', 1, { status: 'ongoing', episodes_watched: 2 }, own.token);
      await put('anime', 2, { status: 'bookmark' }, own.token);
      await put('manga', 1, { status: 'completed', chapters_read: 100 }, own.token);
      await api(app, own.token).put('/v1/my/settings', { time_zone: 'Asia/Tokyo' }).expect(200);

      const result = await runCli(['users', 'export', '--name', 'historian']);
      expect(result.code).toBe(0);
      const exported = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(exported.anime_history).toEqual(await read('/v1/my/anime/history', own.token));
      expect(exported.manga_history).toEqual(await read('/v1/my/manga/history', own.token));
      expect(exported.anime_viewings).toEqual([
        { title_id: 1, viewings: await read('/v1/my/anime/1/viewings', own.token) },
        { title_id: 2, viewings: [] },
      ]);
      expect(exported.manga_viewings).toEqual([
        { title_id: 1, viewings: await read('/v1/my/manga/1/viewings', own.token) },
      ]);

      expect((await runCli(['users', 'delete', '--name', 'historian'])).code).toBe(0);
      const db = app.get(DataSource);
      for (const table of ['history_events', 'history_viewings', 'user_settings']) {
        const [{ n }] = await db.query<{ n: number | string }[]>(
          `SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`,
          [owner.id],
        );
        expect({ table, n: Number(n) }).toEqual({ table, n: 0 });
      }
    });
  });
});

describe('history across instances', () => {
  let one: NestFastifyApplication;
  let two: NestFastifyApplication;

  beforeAll(async () => {
    one = await createTestApp();
    two = await createTestApp();
  });

  afterAll(async () => {
    await one.close();
    await two.close();
  });

  beforeEach(async () => {
    await resetDatabase(one);
    await importTitles(one, [anime(1, { episodes: 1000 })]);
  });

  it('gives one event per state-changing write, in a chain, for concurrent PUTs on two apps', async () => {
    const { token } = await createUserWithToken(one);
    await api(one, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);
    const writes = Array.from({ length: 24 }, (_, i) =>
      api(i % 2 === 0 ? one : two, token)
        .put('/v1/my/anime/1/ratings', {
          status: 'ongoing',
          episodes_watched: i + 1,
          notes: i % 3 === 0 ? 'also notes' : '',
        })
        .expect(200),
    );
    await Promise.all(writes);
    const events = (await api(two, token).get('/v1/my/anime/1/history').expect(200))
      .body as (Event & { episodes_watched?: { from: number | null; to: number } })[];
    expect(events).toHaveLength(25);
    expect(new Set(events.map((e) => e.id)).size).toBe(25);
    const chain = [...events].reverse();
    for (let i = 1; i < chain.length; i++) {
      expect(chain[i].id).toBeGreaterThan(chain[i - 1].id);
      expect(chain[i].episodes_watched!.from).toBe(chain[i - 1].episodes_watched?.to ?? 0);
    }
    expect(new Set(chain.slice(1).map((e) => e.episodes_watched!.to)).size).toBe(24);
  });
});

describe('history durability', () => {
  let app: NestFastifyApplication;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    app = await createTestApp();
    await resetDatabase(app);
    await importTitles(
      app,
      [1, 2, 3, 4].map((id) => anime(id, { episodes: null })),
    );
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    await app.close();
  });

  it('keeps the event of every PUT answered 200 when the process is killed with SIGKILL', async () => {
    const { token } = await createUserWithToken(app);
    const port = await freePort();
    child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'main.js')], {
      env: {
        ...process.env,
        DATABASE_URL: process.env.E2E_DATABASE_URL,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'error',
        RATE_LIMIT_USER_LIMIT: '1000000',
        RATE_LIMIT_IP_LIMIT: '1000000',
        UA_DENY_THRESHOLD: '0',
      },
      stdio: 'ignore',
    });
    await serverIsLive(port, 30_000, '/health/ready');
    const answered: { title: number; episodes: number }[] = [];
    let stop = false;
    const writer = async (title: number) => {
      for (let episodes = 1; !stop; episodes++) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/v1/my/anime/${title}/ratings`, {
            method: 'PUT',
            headers: {
              'User-Agent': USER_AGENT,
              Authorization: `Bearer ${token}`,
              'Content-Type': 'application/json',
            },
            body: JSON.stringify({ status: 'ongoing', episodes_watched: episodes }),
          });
          if (response.status === 200) answered.push({ title, episodes });
        } catch {
          return;
        }
      }
    };
    const writers = [1, 2, 3, 4].map(writer);
    while (answered.length < 60) await sleep(5);
    child.kill('SIGKILL');
    await sleep(200);
    stop = true;
    await Promise.all(writers);

    const db = app.get(DataSource);
    const rows = await db.query<{ title_id: number; episodes_watched_to: number }[]>(
      'SELECT title_id, episodes_watched_to FROM history_events WHERE episodes_watched_to IS NOT NULL',
    );
    const recorded = new Set(rows.map((row) => `${row.title_id}:${row.episodes_watched_to}`));
    const missing = answered.filter(({ title, episodes }) => !recorded.has(`${title}:${episodes}`));
    expect(missing).toEqual([]);
    expect(answered.length).toBeGreaterThanOrEqual(60);
  }, 90_000);
});
