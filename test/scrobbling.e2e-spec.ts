import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SCOPES } from '../src/auth/scopes';
import { PurgeRunner } from '../src/purges/purge-runner.service';
import { anime, createUserWithToken, importTitles, manga, putEntry } from './factories';
import { randomBytes } from 'node:crypto';
import { api, createTestApp, resetDatabase, useTestApp } from './utils/test-app';
import { testRedisUrl } from './utils/test-services';

type Json = Record<string, unknown>;

const FIXTURES = join(__dirname, 'fixtures', 'scrobble');
const PROBLEM = 'application/problem+json; charset=utf-8';

/** A payload of test/fixtures/scrobble (see its README for where each shape comes from). */
function fixture(name: string): Json {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as Json;
}

/** A fixture with some members replaced (`Metadata.index` style paths). */
function withValues(payload: Json, values: Record<string, unknown>): Json {
  const copy = JSON.parse(JSON.stringify(payload)) as Json;
  for (const [path, value] of Object.entries(values)) {
    const keys = path.split('.');
    let target = copy;
    for (const key of keys.slice(0, -1)) target = target[key] as Json;
    if (value === undefined) delete target[keys[keys.length - 1]];
    else target[keys[keys.length - 1]] = value;
  }
  return copy;
}

/** Titles with cross-references: Frieren (anilist, anidb, kitsu, a synonym), a movie, a manga. */
const CATALOG = [
  anime(1, {
    externalId: 52991,
    title: 'Sousou no Frieren',
    episodes: 28,
    crossRefs: {
      ids: { anilist: 154587, anidb: 17617, kitsu: 46474 },
      synonyms: ['Frieren: Beyond Journey’s End'],
    },
  }),
  anime(2, {
    externalId: 32281,
    title: 'Kimi no Na wa.',
    episodes: 1,
    crossRefs: { ids: { anidb: 11829 }, synonyms: ['Your Name.'] },
  }),
  anime(3, { externalId: 16498, title: 'Shingeki no Kyojin', episodes: 25 }),
  anime(4, { externalId: 25777, title: 'Shingeki no Kyojin Season 2', episodes: 12 }),
  // Two titles of one name: a name that is not unique matches nothing.
  anime(5, { externalId: 1001, title: 'Twin', episodes: 12 }),
  anime(6, {
    externalId: 1002,
    title: 'Other',
    episodes: 12,
    crossRefs: { ids: {}, synonyms: ['twin'] },
  }),
  anime(7, { externalId: 1003, title: 'Unknown Count', episodes: null }),
  anime(8, { externalId: 1004, title: 'Oshi no Ko "Idol"', episodes: 11 }),
  manga(1, { externalId: 126287, title: 'Sousou no Frieren', chapters: 140, volumes: 14 }),
];

/** A refused scrobble wrote nothing: no entry, no duplicate window, no unmatched, no last use. */
async function expectNothingWritten(app: NestFastifyApplication, token: string): Promise<void> {
  expect((await api(app, token).get('/v1/my/anime/ratings').expect(200)).body).toEqual([]);
  expect((await api(app, token).get('/v1/my/manga/ratings').expect(200)).body).toEqual([]);
  const dataSource = app.get(DataSource);
  for (const table of ['scrobble_recent', 'scrobble_unmatched']) {
    expect(await dataSource.query(`SELECT * FROM ${table}`)).toEqual([]);
  }
  const scrobblers = (await api(app, token).get('/v1/my/scrobblers').expect(200)).body as Json[];
  for (const scrobbler of scrobblers) expect(scrobbler.last_used_at).toBeNull();
}

describe('scrobbling (contract §21)', () => {
  let app: NestFastifyApplication;
  let token: string;
  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, CATALOG);
    ({ token } = await createUserWithToken(app));
  });

  const server = () => app.getHttpServer();
  const create = async (body: Json, as = token): Promise<Json & { url: string; id: string }> =>
    (await api(app, as).post('/v1/my/scrobblers', body).expect(201)).body as Json & {
      url: string;
      id: string;
    };
  const pathOf = (url: string) => new URL(url).pathname;
  const scrobble = (url: string, body: unknown, type = 'application/json') =>
    request(server())
      .post(pathOf(url))
      .set('Content-Type', type)
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  const entry = async (mediaType = 'anime', id = 1, as = token) =>
    ((await api(app, as).get(`/v1/my/${mediaType}/${id}/ratings`).expect(200)).body as Json[])[0];

  describe('scrobblers', () => {
    it('creates one (the URL once, the secret hashed), lists, rotates and deletes', async () => {
      const created = await create({ kind: 'jellyfin', name: 'Living room', server_user: 'alice' });
      expect(created).toEqual({
        id: expect.any(String),
        kind: 'jellyfin',
        name: 'Living room',
        server_user: 'alice',
        rewatches: false,
        visible: false,
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1(:\d+)?\/scrobble\/[A-Za-z0-9_-]{32,}$/),
        created_at: expect.stringMatching(/Z$/),
      });
      const listed = (await api(app, token).get('/v1/my/scrobblers').expect(200)).body as Json[];
      expect(listed).toEqual([
        {
          id: created.id,
          kind: 'jellyfin',
          name: 'Living room',
          server_user: 'alice',
          rewatches: false,
          visible: false,
          created_at: created.created_at,
          last_used_at: null,
        },
      ]);

      const secret = pathOf(created.url).split('/').pop()!;
      const stored = await app.get(DataSource).query('SELECT secret_hash FROM scrobblers');
      expect(JSON.stringify(stored)).not.toContain(secret);

      const rotated = (
        await api(app, token).post(`/v1/my/scrobblers/${created.id}/secret`).expect(200)
      ).body as Json & { url: string };
      expect(rotated.url).not.toBe(created.url);
      await scrobble(created.url, fixture('jellyfin/playback-stop-episode')).expect(404);
      await scrobble(rotated.url, fixture('jellyfin/playback-stop-episode')).expect(200);
      const used = (await api(app, token).get('/v1/my/scrobblers').expect(200)).body as Json[];
      expect(used[0].last_used_at).toEqual(expect.stringMatching(/Z$/));

      const other = await createUserWithToken(app);
      await api(app, other.token).delete(`/v1/my/scrobblers/${created.id}`).expect(404);
      await api(app, other.token).post(`/v1/my/scrobblers/${created.id}/secret`).expect(404);
      await api(app, token)
        .delete(`/v1/my/scrobblers/${created.id}`)
        .expect(200, { success: true });
      await scrobble(rotated.url, fixture('jellyfin/playback-stop-episode')).expect(404);
      await api(app, token).delete(`/v1/my/scrobblers/${created.id}`).expect(404);
    });

    it('refuses bad bodies by field, server_user for kodi and generic, and a 21st scrobbler', async () => {
      const bad = async (body: unknown, field: string) => {
        const answer = await api(app, token).post('/v1/my/scrobblers', body).expect(400);
        expect(answer.headers['content-type']).toBe(PROBLEM);
        expect(
          (answer.body as { errors: { field: string }[] }).errors.map((e) => e.field),
        ).toContain(field);
      };
      await bad({ kind: 'winamp', name: 'x' }, 'kind');
      await bad({ kind: 'plex' }, 'name');
      await bad({ kind: 'plex', name: 'x'.repeat(65) }, 'name');
      await bad({ kind: 'plex', name: 'x', server_user: '' }, 'server_user');
      await bad({ kind: 'plex', name: 'x', rewatches: 'yes' }, 'rewatches');
      await bad({ kind: 'plex', name: 'x', colour: 'red' }, 'colour');
      await bad({ kind: 'kodi', name: 'x', server_user: 'alice' }, 'server_user');
      await bad({ kind: 'generic', name: 'x', server_user: 'alice' }, 'server_user');
      for (let i = 0; i < 20; i++) await create({ kind: 'generic', name: `n${i}` });
      const refused = await api(app, token)
        .post('/v1/my/scrobblers', { kind: 'generic', name: 'n20' })
        .expect(409);
      expect(refused.headers['content-type']).toBe(PROBLEM);
      expect(refused.body).toMatchObject({
        type: 'https://ratings.example/problems/conflict',
        title: 'Conflict',
      });
      expect((await api(app, token).get('/v1/my/scrobblers').expect(200)).body).toHaveLength(20);
    });

    it('counts characters as code points, as the columns do: stored whole or 400 naming the field', async () => {
      const bad = async (body: unknown, field: string) => {
        const answer = await api(app, token).post('/v1/my/scrobblers', body).expect(400);
        expect((answer.body as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(
          [field],
        );
      };
      const names = ['😀'.repeat(64), 'a' + '\uFE0F'.repeat(63), '❤️'.repeat(32), 'é'.repeat(64)];
      for (const name of names) {
        const created = await create({ kind: 'plex', name, server_user: '😀'.repeat(128) });
        expect([created.name, created.server_user]).toEqual([name, '😀'.repeat(128)]);
      }
      const listed = (await api(app, token).get('/v1/my/scrobblers').expect(200)).body as Json[];
      expect(listed.map((scrobbler) => scrobbler.name).sort()).toEqual([...names].sort());
      expect(listed.map((scrobbler) => scrobbler.server_user)).toEqual(
        names.map(() => '😀'.repeat(128)),
      );
      await bad({ kind: 'plex', name: '😀'.repeat(65) }, 'name');
      await bad({ kind: 'plex', name: 'a' + '\uFE0F'.repeat(64) }, 'name');
      await bad({ kind: 'plex', name: '❤️'.repeat(33) }, 'name');
      await bad({ kind: 'plex', name: 'x', server_user: '😀'.repeat(129) }, 'server_user');

      // The mapping's series and the unmatched list's: 500 characters.
      const series = '😀'.repeat(500);
      const { url } = await create({ kind: 'generic', name: 'G' });
      await scrobble(url, { event: 'watched', title: series, episode: 1 }).expect(200);
      const unmatched = (await api(app, token).get('/v1/my/scrobblers/unmatched').expect(200))
        .body as Json[];
      expect(unmatched.map((item) => item.series)).toEqual([series]);
      await scrobble(url, { event: 'watched', title: '😀'.repeat(501), episode: 1 }).expect(400);
      const mapped = await api(app, token)
        .put('/v1/my/scrobble-mappings', { series, title_id: 7 })
        .expect(200);
      expect((mapped.body as Json).series).toBe(series);
      expect(await entry('anime', 7)).toMatchObject({ episodes_watched: 1 });
      const refused = await api(app, token)
        .put('/v1/my/scrobble-mappings', { series: '😀'.repeat(501), title_id: 7 })
        .expect(400);
      expect((refused.body as { errors: { field: string }[] }).errors).toEqual([
        { field: 'series', message: 'must be a string of 1 to 500 characters' },
      ]);
      await api(app, token)
        .delete(`/v1/my/scrobble-mappings?series=${encodeURIComponent(series)}`)
        .expect(200);
    });

    it('server_user null is server_user absent, for every kind', async () => {
      const urls: Record<string, string> = {};
      for (const kind of ['jellyfin', 'plex', 'emby', 'kodi', 'generic']) {
        const created = await create({ kind, name: kind, server_user: null });
        expect(created.server_user).toBeNull();
        urls[kind] = created.url;
      }
      const listed = (await api(app, token).get('/v1/my/scrobblers').expect(200)).body as Json[];
      expect(listed.map((scrobbler) => scrobbler.server_user)).toEqual(Array(5).fill(null));
      // No server user: every account's payloads count.
      const stop = withValues(fixture('jellyfin/playback-stop-episode'), {
        NotificationUsername: 'anyone',
      });
      expect((await scrobble(urls.jellyfin, stop).expect(200)).body.outcome).toBe('created');
    });

    it('needs ratings.anime', async () => {
      const { token: mangaOnly } = await createUserWithToken(app, [SCOPES.manga]);
      await api(app, mangaOnly).get('/v1/my/scrobblers').expect(403);
      await api(app, mangaOnly).post('/v1/my/scrobblers', { kind: 'plex', name: 'x' }).expect(403);
    });
  });

  describe('each kind with its real payloads', () => {
    it('jellyfin: "Send All Properties" as text/plain, the template as JSON, the Generic Form', async () => {
      const { url } = await create({ kind: 'jellyfin', name: 'Jellyfin' });
      const stop = fixture('jellyfin/playback-stop-episode');
      // The item's own Provider_anidb of an episode is an episode id: never used. The name matches.
      const first = await scrobble(url, JSON.stringify(stop), 'text/plain; charset=utf-8').expect(
        200,
      );
      expect(first.body).toEqual({ outcome: 'created', title_id: 1, episodes_watched: 1 });
      const template = withValues(fixture('jellyfin/template'), { EpisodeNumber: '2' });
      expect((await scrobble(url, template).expect(200)).body).toEqual({
        outcome: 'updated',
        title_id: 1,
        episodes_watched: 2,
      });
      const form = new URLSearchParams({
        NotificationType: 'PlaybackStop',
        ItemType: 'Episode',
        PlayedToCompletion: 'True',
        SeriesName: 'Sousou no Frieren',
        SeasonNumber: '1',
        EpisodeNumber: '3',
        EpisodeNumberEnd: '4',
        NotificationUsername: 'alice',
      }).toString();
      expect(
        (await scrobble(url, form, 'application/x-www-form-urlencoded').expect(200)).body,
      ).toEqual({
        outcome: 'updated',
        title_id: 1,
        episodes_watched: 4,
      });
      const movie = await scrobble(url, fixture('jellyfin/user-data-saved-movie')).expect(200);
      expect(movie.body).toEqual({ outcome: 'created', title_id: 2, episodes_watched: 1 });
      expect(await entry('anime', 2)).toMatchObject({ status: 'completed', is_visible: false });
      // "Send All Properties" carries the quotes of names escaped by the plugin.
      const quoted = withValues(stop, { SeriesName: 'Oshi no Ko \\"Idol\\"' });
      expect((await scrobble(url, quoted).expect(200)).body).toMatchObject({ title_id: 8 });
      const paused = withValues(stop, { NotificationType: 'PlaybackStart' });
      expect((await scrobble(url, paused).expect(200)).body).toEqual({
        outcome: 'not_watched',
        title_id: null,
        episodes_watched: null,
      });
      const unfinished = withValues(stop, { PlayedToCompletion: false, EpisodeNumber: 9 });
      expect((await scrobble(url, unfinished).expect(200)).body.outcome).toBe('not_watched');
    });

    it('plex: JSON and multipart (payload part, the JPEG ignored); HAMA and MyAnimeList agents', async () => {
      const { url } = await create({ kind: 'plex', name: 'Plex' });
      const episode = withValues(fixture('plex/media-scrobble-episode'), {
        'Metadata.grandparentTitle': 'Renamed In Plex',
        'Metadata.index': 5,
      });
      const multipart = await request(server())
        .post(pathOf(url))
        .field('payload', JSON.stringify(episode))
        .attach('thumb', Buffer.alloc(200_000, 0xff), {
          filename: 'thumb.jpg',
          contentType: 'image/jpeg',
        })
        .expect(200);
      // The HAMA agent's AniDB id names the series: rule 1.
      expect(multipart.body).toEqual({ outcome: 'created', title_id: 1, episodes_watched: 5 });
      const movie = await scrobble(url, fixture('plex/media-scrobble-movie-mal')).expect(200);
      expect(movie.body).toEqual({ outcome: 'created', title_id: 2, episodes_watched: 1 });
      const play = withValues(episode, { event: 'media.play' });
      expect((await scrobble(url, play).expect(200)).body.outcome).toBe('not_watched');
      // Another account on the owner's server: ignored unless server_user names it.
      const shared = withValues(episode, {
        user: false,
        'Account.title': 'bob',
        'Metadata.index': 6,
      });
      expect((await scrobble(url, shared).expect(200)).body).toEqual({
        outcome: 'ignored',
        title_id: null,
        episodes_watched: null,
      });
      const forBob = await create({ kind: 'plex', name: 'Bob', server_user: 'bob' });
      expect((await scrobble(forBob.url, shared).expect(200)).body.outcome).toBe('updated');
      // A HAMA tvdb- guid is no anime id: no name matches either.
      const tvdb = withValues(episode, {
        'Metadata.guid': 'com.plexapp.agents.hama://tvdb-424536/1/7?lang=en',
        'Metadata.grandparentGuid': 'com.plexapp.agents.hama://tvdb-424536?lang=en',
        'Metadata.parentGuid': undefined,
      });
      expect((await scrobble(url, tvdb).expect(200)).body.outcome).toBe('unmatched');
    });

    it('emby: JSON and multipart (data part); markplayed of a movie by its AniDB id', async () => {
      const { url } = await create({ kind: 'emby', name: 'Emby', server_user: 'alice' });
      const stop = withValues(fixture('emby/playback-stop-episode'), { 'Item.IndexNumber': 3 });
      const answer = await request(server())
        .post(pathOf(url))
        .field('data', JSON.stringify(stop))
        .expect(200);
      expect(answer.body).toEqual({ outcome: 'created', title_id: 1, episodes_watched: 3 });
      expect((await scrobble(url, fixture('emby/item-markplayed-movie')).expect(200)).body).toEqual(
        {
          outcome: 'created',
          title_id: 2,
          episodes_watched: 1,
        },
      );
      const someoneElse = withValues(stop, { 'User.Name': 'bob', 'Item.IndexNumber': 4 });
      expect((await scrobble(url, someoneElse).expect(200)).body.outcome).toBe('ignored');
      const unfinished = withValues(stop, { 'PlaybackInfo.PlayedToCompletion': false });
      expect((await scrobble(url, unfinished).expect(200)).body.outcome).toBe('not_watched');
    });

    it('kodi: end, and stop at 80 % or more', async () => {
      const { url } = await create({ kind: 'kodi', name: 'Kodi' });
      const end = withValues(fixture('kodi/end-episode'), { episode: 2 });
      expect((await scrobble(url, end).expect(200)).body).toEqual({
        outcome: 'created',
        title_id: 1,
        episodes_watched: 2,
      });
      const early = withValues(end, { event: 'stop', episode: 3, 'progress.percent': 79.9 });
      expect((await scrobble(url, early).expect(200)).body.outcome).toBe('not_watched');
      const late = withValues(early, { 'progress.percent': '80' });
      expect((await scrobble(url, late).expect(200)).body.outcome).toBe('updated');
      // The movie: by its title.
      expect((await scrobble(url, fixture('kodi/stop-movie')).expect(200)).body).toEqual({
        outcome: 'created',
        title_id: 2,
        episodes_watched: 1,
      });
      // Series ids are tvShowUniqueIds only: a movie's own uniqueIds are not read, even when
      // they look like another title's, and a malformed tvShowUniqueIds is named.
      const otherIds = withValues(fixture('kodi/stop-movie'), { uniqueIds: { mal: 52991 } });
      expect((await scrobble(url, otherIds).expect(200)).body).toMatchObject({ title_id: 2 });
      const malformed = withValues(end, { tvShowUniqueIds: 'x' });
      expect((await scrobble(url, malformed).expect(400)).body.detail).toBe(
        'tvShowUniqueIds must be an object',
      );
    });

    it('generic: watched, and read for a scrobbler whose token held ratings.manga', async () => {
      const { url } = await create({ kind: 'generic', name: 'Script' });
      expect((await scrobble(url, fixture('generic/watched')).expect(200)).body).toEqual({
        outcome: 'created',
        title_id: 1,
        episodes_watched: 1,
      });
      expect((await scrobble(url, fixture('generic/read')).expect(200)).body).toEqual({
        outcome: 'created',
        title_id: 1,
        chapters_read: 12,
      });
      expect(await entry('manga', 1)).toMatchObject({ chapters_read: 12, volumes_read: 2 });
      const { token: animeOnly } = await createUserWithToken(app, [SCOPES.anime]);
      const limited = await create({ kind: 'generic', name: 'Anime only' }, animeOnly);
      expect((await scrobble(limited.url, fixture('generic/read')).expect(200)).body).toEqual({
        outcome: 'ignored',
        title_id: null,
        chapters_read: null,
      });
      expect((await scrobble(url, { event: 'paused' }).expect(200)).body.outcome).toBe(
        'not_watched',
      );
    });
  });

  describe('what the receiver refuses', () => {
    it('415 for other or missing content types (checked before the body), 400 for unreadable bodies, 413 past 2 MiB', async () => {
      const jellyfin = await create({ kind: 'jellyfin', name: 'J' });
      const generic = await create({ kind: 'generic', name: 'G' });
      const refusedType = async (url: string, send: (test: request.Test) => request.Test) => {
        const answer = await send(request(server()).post(pathOf(url))).expect(415);
        expect(answer.headers['content-type']).toBe(PROBLEM);
      };
      await refusedType(jellyfin.url, (test) => test);
      await refusedType(jellyfin.url, (test) =>
        test.set('Content-Type', 'application/xml').send('<a/>'),
      );
      await refusedType(jellyfin.url, (test) => test.field('payload', '{}'));
      await refusedType(generic.url, (test) =>
        test.set('Content-Type', 'application/x-www-form-urlencoded').send('event=watched'),
      );
      const unreadable = async (url: string, body: string, type = 'application/json') => {
        const answer = await scrobble(url, body, type).expect(400);
        expect(answer.headers['content-type']).toBe(PROBLEM);
      };
      await unreadable(generic.url, '', 'text/plain');
      await unreadable(generic.url, '{"event":', 'text/plain');
      await unreadable(generic.url, '[1,2]');
      await unreadable(generic.url, '{"title":"no event"}');
      await unreadable(generic.url, '{"event":"watched","episode":"five"}');
      await unreadable(generic.url, '{"event":"watched","episode":99999999999}');
      await unreadable(generic.url, '{"event":"watched","episode":1.5}');
      await unreadable(jellyfin.url, JSON.stringify(fixture('plex/media-scrobble-episode')));
      // Valid JSON that is not an object, and JSON nested past what a stack holds (it was a 500).
      const nested = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
      for (const [body, type] of [
        ['"just a string"', 'application/json'],
        ['null', 'application/json'],
        ['"just a string"', 'text/plain'],
        [nested, 'application/json'],
        [nested, 'text/plain'],
      ]) {
        const answer = await scrobble(generic.url, body, type).expect(400);
        expect(answer.headers['content-type']).toBe(PROBLEM);
        expect((answer.body as Json).detail).toBe('The body must be a JSON object');
      }
      // Deep nesting in a member no parser reads is no reason to refuse the scrobble.
      const deep = `{"event":"watched","title":"Nowhere To Be Found","notes":${nested}}`;
      for (const type of ['application/json', 'text/plain']) {
        expect((await scrobble(generic.url, deep, type).expect(200)).body.outcome).toBe(
          'unmatched',
        );
      }
      await unreadable(generic.url, JSON.stringify({ event: 'watched', title: 'x'.repeat(501) }));
      const huge = JSON.stringify({
        event: 'watched',
        title: 'Sousou no Frieren',
        pad: 'x'.repeat(2 * 1024 * 1024),
      });
      const tooLarge = await scrobble(generic.url, huge).expect(413);
      expect(tooLarge.headers['content-type']).toBe(PROBLEM);
      expect((tooLarge.body as Json).detail).toBe(
        `The request body is larger than ${2 * 1024 * 1024} bytes`,
      );
      // A large body under the limit is read.
      const large = JSON.stringify({
        event: 'watched',
        title: 'Sousou no Frieren',
        episode: 1,
        pad: 'x'.repeat(1024 * 1024),
      });
      expect((await scrobble(generic.url, large).expect(200)).body.outcome).toBe('created');
      expect(await entry()).toMatchObject({ episodes_watched: 1 });
    });

    it('404 for unknown secrets, with the members of an unknown path and never the secret', async () => {
      const unknownPath = await request(server()).post('/nowhere').expect(404);
      for (const path of ['/scrobble/not-a-secret-at-all', '/scrobble/x/y', '/scrobble/']) {
        const answer = await request(server())
          .post(path)
          .set('Content-Type', 'application/json')
          .send('{"event":"watched"}')
          .expect(404);
        expect(answer.headers['content-type']).toBe(PROBLEM);
        expect(Object.keys(answer.body as Json).sort()).toEqual(
          Object.keys(unknownPath.body as Json).sort(),
        );
        expect(JSON.stringify(answer.body)).not.toContain('not-a-secret');
        expect(JSON.stringify(answer.body)).not.toContain('scrobble/');
      }
      const { url } = await create({ kind: 'generic', name: 'G' });
      const secret = pathOf(url).split('/').pop()!;
      for (const answer of [
        await scrobble(url, '{', 'text/plain').expect(400),
        await scrobble(url, 'x', 'image/png').expect(415),
        await request(server()).get(pathOf(url)).expect(405),
        // Its path with a trailing slash is no receiver's: 404, not 405.
        await request(server())
          .post(`${pathOf(url)}/`)
          .set('Content-Type', 'application/json')
          .send('{"event":"watched"}')
          .expect(404),
      ]) {
        expect(JSON.stringify(answer.body)).not.toContain(secret);
      }
    });

    it('checks in the order 404, 415, 413, 400: the secret and the Content-Type before the body', async () => {
      const { url } = await create({ kind: 'generic', name: 'G' });
      const unknown = '/scrobble/not-a-secret-at-all';
      const oversize = Buffer.alloc(2 * 1024 * 1024 + 1, 0x78);
      const unknownPath = await request(server()).post('/nowhere').expect(404);
      const refused = async (status: number, test: request.Test) => {
        const answer = await test;
        expect(answer.status).toBe(status);
        expect(answer.headers['content-type']).toBe(PROBLEM);
        expect(JSON.stringify(answer.body)).not.toContain('not-a-secret');
        expect(JSON.stringify(answer.body)).not.toContain(pathOf(url).split('/').pop()!);
        if (status === 404) {
          expect(Object.keys(answer.body as Json).sort()).toEqual(
            Object.keys(unknownPath.body as Json).sort(),
          );
          expect(answer.headers['ratelimit-limit']).toBeUndefined();
        } else {
          expect(answer.headers['ratelimit-limit']).toBe('120');
        }
        return answer.body as Json;
      };
      const post = (path: string) => request(server()).post(path);

      // An unknown secret is 404 whatever the body: broken, oversize, encoded, of any type.
      await refused(404, post(unknown).set('Content-Type', 'application/json').send('{"event":'));
      await refused(404, post(unknown).set('Content-Type', 'application/json').send(oversize));
      await refused(404, post(unknown).set('Content-Type', 'application/xml').send(oversize));
      await refused(404, post(unknown).send(oversize));
      await refused(
        404,
        post(unknown)
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', 'gzip')
          .send('{"event":"watched"}'),
      );
      // A known secret: the Content-Type before the body's size and syntax.
      await refused(415, post(pathOf(url)).set('Content-Type', 'application/xml').send(oversize));
      await refused(415, post(pathOf(url)).send(oversize));
      await refused(415, post(pathOf(url)));
      await refused(415, post(pathOf(url)).set('Content-Type', 'image/png').send('{"event":'));
      // The right type: the size, then the syntax.
      expect(
        await refused(
          413,
          post(pathOf(url)).set('Content-Type', 'application/json').send(oversize),
        ),
      ).toMatchObject({ detail: `The request body is larger than ${2 * 1024 * 1024} bytes` });
      await refused(413, post(pathOf(url)).set('Content-Type', 'text/plain').send(oversize));
      await refused(
        400,
        post(pathOf(url)).set('Content-Type', 'application/json').send('{"event":'),
      );
      await refused(400, post(pathOf(url)).set('Content-Type', 'application/json').send('[1]'));
      await expectNothingWritten(app, token);
      // Each of the eight refusals past the 404 counted once against the secret's window.
      const counted = await scrobble(url, { event: 'paused' }).expect(200);
      expect(counted.headers['ratelimit-remaining']).toBe(String(120 - 9));
    });

    it('hostile names are names: control characters dropped, markup kept as text, nothing else written', async () => {
      const { url } = await create({ kind: 'generic', name: 'G' });
      const hostile = {
        event: 'watched',
        title: '<script>alert(1)</script>\u0000\u001b[31m',
        episode: 1,
      };
      expect((await scrobble(url, hostile).expect(200)).body.outcome).toBe('unmatched');
      const unmatched = (await api(app, token).get('/v1/my/scrobblers/unmatched').expect(200))
        .body as Json[];
      expect(unmatched[0].series).toBe('<script>alert(1)</script>  [31m');
      expect((await api(app, token).get('/v1/my/anime/ratings').expect(200)).body).toEqual([]);
    });
  });

  describe('effects', () => {
    it('creates private and ongoing from today, never moves progress back, completes at the count', async () => {
      await api(app, token).put('/v1/my/settings', { time_zone: 'Pacific/Kiritimati' }).expect(200);
      const { url } = await create({ kind: 'generic', name: 'G' });
      const watched = (episode: number, title = 'Sousou no Frieren') =>
        scrobble(url, { event: 'watched', title, episode }).expect(200);
      expect((await watched(5)).body).toEqual({
        outcome: 'created',
        title_id: 1,
        episodes_watched: 5,
      });
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(
        new Date(),
      );
      expect(await entry()).toMatchObject({
        status: 'ongoing',
        episodes_watched: 5,
        start_date: today,
        end_date: null,
        is_visible: false,
      });
      expect((await watched(3)).body).toEqual({
        outcome: 'unchanged',
        title_id: 1,
        episodes_watched: 5,
      });
      expect((await watched(28)).body).toEqual({
        outcome: 'updated',
        title_id: 1,
        episodes_watched: 28,
      });
      expect(await entry()).toMatchObject({ status: 'completed', end_date: today });
      // Completed, rewatches off: an autoplayed episode 1 changes nothing.
      expect((await watched(1)).body).toEqual({
        outcome: 'ignored',
        title_id: 1,
        episodes_watched: 28,
      });
      // Past the count: capped, then unchanged.
      expect((await watched(40, 'Shingeki no Kyojin')).body).toEqual({
        outcome: 'created',
        title_id: 3,
        episodes_watched: 25,
      });
      expect((await watched(0, 'Unknown Count')).body).toEqual({
        outcome: 'ignored',
        title_id: 7,
        episodes_watched: null,
      });
      expect((await watched(-3, 'Unknown Count')).body.outcome).toBe('ignored');
      const noEpisode = await scrobble(url, { event: 'watched', title: 'Unknown Count' }).expect(
        200,
      );
      expect(noEpisode.body).toEqual({ outcome: 'ignored', title_id: 7, episodes_watched: null });
      const movie = await scrobble(url, { event: 'watched', ids: { anidb: 11829 } }).expect(200);
      expect(movie.body).toEqual({ outcome: 'created', title_id: 2, episodes_watched: 1 });
    });

    it('moves other statuses to ongoing, and the history records source scrobble and the kind', async () => {
      await putEntry(app, token, 'anime', 1, { status: 'on_hold', episodes_watched: 4 });
      const { url } = await create({ kind: 'kodi', name: 'K' });
      await scrobble(url, withValues(fixture('kodi/end-episode'), { episode: 5 })).expect(200);
      expect(await entry()).toMatchObject({ status: 'ongoing', episodes_watched: 5 });
      const history = (await api(app, token).get('/v1/my/anime/1/history').expect(200))
        .body as Json[];
      expect(history[0]).toMatchObject({
        source: 'scrobble',
        client: 'kodi',
        status: { from: 'on_hold', to: 'ongoing' },
        episodes_watched: { from: 4, to: 5 },
      });
    });

    it('the rewatch cycle when the scrobbler allows rewatches', async () => {
      const { url } = await create({ kind: 'generic', name: 'G', rewatches: true, visible: true });
      const watched = (episode: number) =>
        scrobble(url, { event: 'watched', ids: { anilist: 154587 }, episode }).expect(200);
      await putEntry(app, token, 'anime', 1, { status: 'completed', episodes_watched: 28 });
      expect((await watched(2)).body.outcome).toBe('ignored');
      expect((await watched(1)).body).toEqual({
        outcome: 'updated',
        title_id: 1,
        episodes_watched: 1,
      });
      expect(await entry()).toMatchObject({
        status: 'completed',
        is_rewatching: true,
        episodes_watched: 1,
      });
      expect((await watched(14)).body.outcome).toBe('updated');
      expect(await entry()).toMatchObject({
        status: 'completed',
        is_rewatching: true,
        episodes_watched: 14,
      });
      expect((await watched(28)).body.outcome).toBe('updated');
      expect(await entry()).toMatchObject({
        status: 'completed',
        is_rewatching: false,
        times_rewatched: 1,
        episodes_watched: 28,
      });
      const viewings = (await api(app, token).get('/v1/my/anime/1/viewings').expect(200))
        .body as Json[];
      expect(viewings.map((viewing) => viewing.state)).toEqual(['finished', 'finished']);
      // visible: true makes created entries public.
      await watched(1);
      expect(
        (await scrobble(url, { event: 'watched', ids: { mal: 16498 }, episode: 1 }).expect(200))
          .body.outcome,
      ).toBe('created');
      expect(await entry('anime', 3)).toMatchObject({ is_visible: true });
    });

    it('a movie watched again: the rewatch opens a viewing and finishes it in the same write', async () => {
      const { url } = await create({ kind: 'generic', name: 'G', rewatches: true });
      const watchedMovie = () =>
        scrobble(url, { event: 'watched', ids: { anidb: 11829 } }).expect(200);
      expect((await watchedMovie()).body.outcome).toBe('created');
      // No episode: episode 1 of a one-episode title, so the same again is a duplicate.
      expect((await watchedMovie()).body).toEqual({
        outcome: 'duplicate',
        title_id: 2,
        episodes_watched: 1,
      });
      const movie = () => entry('anime', 2);
      expect(await movie()).toMatchObject({ status: 'completed', times_rewatched: 0 });
      // Another scrobbler: no duplicate within the 10 minutes.
      const again = await create({ kind: 'generic', name: 'G2', rewatches: true });
      const rewatch = await scrobble(again.url, { event: 'watched', ids: { anidb: 11829 } });
      expect(rewatch.body).toEqual({ outcome: 'updated', title_id: 2, episodes_watched: 1 });
      expect(await movie()).toMatchObject({
        status: 'completed',
        is_rewatching: false,
        times_rewatched: 1,
        episodes_watched: 1,
      });
      const viewings = (await api(app, token).get('/v1/my/anime/2/viewings').expect(200))
        .body as Json[];
      expect(viewings).toMatchObject([
        { number: 1, state: 'finished', progress: 1 },
        { number: 2, state: 'finished', progress: 1 },
      ]);
    });

    it('the same episode again within 10 minutes is a duplicate that writes nothing', async () => {
      const { url } = await create({ kind: 'jellyfin', name: 'J' });
      const stop = fixture('jellyfin/playback-stop-episode');
      expect((await scrobble(url, stop).expect(200)).body.outcome).toBe('created');
      expect((await scrobble(url, stop).expect(200)).body).toEqual({
        outcome: 'duplicate',
        title_id: 1,
        episodes_watched: 1,
      });
      const other = await create({ kind: 'jellyfin', name: 'J2' });
      expect((await scrobble(other.url, stop).expect(200)).body.outcome).toBe('unchanged');
      const history = (await api(app, token).get('/v1/my/anime/1/history').expect(200))
        .body as Json[];
      expect(history).toHaveLength(1);
    });
  });

  describe('matching', () => {
    it('ids first (first season only), then the mapping, then one exact name or synonym', async () => {
      const { url } = await create({ kind: 'generic', name: 'G' });
      const outcome = async (body: Json) =>
        (await scrobble(url, { event: 'watched', ...body }).expect(200)).body as Json;
      // The mal id decides before a name that names another title.
      expect(
        await outcome({ ids: { mal: 16498 }, title: 'Sousou no Frieren', episode: 1 }),
      ).toMatchObject({ title_id: 3 });
      // An unknown mal id: the next known id decides.
      expect(await outcome({ ids: { mal: 999999, kitsu: 46474 }, episode: 2 })).toMatchObject({
        title_id: 1,
      });
      // Season 2: ids and names do not apply.
      expect(
        await outcome({ ids: { mal: 16498 }, title: 'Shingeki no Kyojin', season: 2, episode: 1 }),
      ).toMatchObject({
        outcome: 'unmatched',
        title_id: null,
      });
      // A synonym, compared after NFKC, case and spaces.
      expect(
        await outcome({ title: '  FRIEREN:  beyond journey’s end ', season: 1, episode: 3 }),
      ).toMatchObject({ title_id: 1 });
      expect(await outcome({ title: 'Ｙｏｕｒ Ｎａｍｅ.' })).toMatchObject({
        title_id: 2,
        outcome: 'created',
      });
      // A name two titles share matches none.
      expect(await outcome({ title: 'Twin', episode: 1 })).toMatchObject({ outcome: 'unmatched' });
      // Season 0 holds specials.
      expect(await outcome({ title: 'Sousou no Frieren', season: 0, episode: 1 })).toMatchObject({
        outcome: 'unmatched',
      });
    });

    it('never uses an AniDB episode id of Jellyfin or Emby; their AniList and MyAnimeList ids match', async () => {
      const jellyfin = await create({ kind: 'jellyfin', name: 'J' });
      const stop = withValues(fixture('jellyfin/playback-stop-episode'), { SeriesName: 'Renamed' });
      // Provider_anidb 17617 is Frieren's AniDB id, but on an episode it names an episode.
      expect((await scrobble(jellyfin.url, stop).expect(200)).body.outcome).toBe('unmatched');
      const withAnilist = withValues(stop, { provider_AniList: '154587', EpisodeNumber: 2 });
      expect((await scrobble(jellyfin.url, withAnilist).expect(200)).body).toMatchObject({
        title_id: 1,
      });
      const emby = await create({ kind: 'emby', name: 'E' });
      const embyStop = withValues(fixture('emby/playback-stop-episode'), {
        'Item.SeriesName': 'Renamed',
        'Item.ProviderIds': { AniDB: '17617' },
      });
      expect((await scrobble(emby.url, embyStop).expect(200)).body.outcome).toBe('unmatched');
      const embyMal = withValues(embyStop, {
        'Item.ProviderIds': { myanimelist: '52991' },
        'Item.IndexNumber': 3,
      });
      expect((await scrobble(emby.url, embyMal).expect(200)).body).toMatchObject({
        title_id: 1,
        episodes_watched: 3,
      });
    });

    it('keeps the unmatched, and a mapping replays them in order, safely, dated the day they arrived', async () => {
      const { url } = await create({ kind: 'jellyfin', name: 'J' });
      const stop = (episode: number) =>
        withValues(fixture('jellyfin/playback-stop-episode'), {
          SeriesName: 'Attack on Titan',
          SeasonNumber: 2,
          EpisodeNumber: episode,
        });
      for (const episode of [26, 27, 27]) {
        expect((await scrobble(url, stop(episode)).expect(200)).body).toEqual({
          outcome: 'unmatched',
          title_id: null,
          episodes_watched: null,
        });
      }
      await scrobble(
        url,
        withValues(fixture('jellyfin/playback-stop-episode'), {
          SeriesName: 'Nowhere',
          SeasonNumber: 1,
        }),
      ).expect(200);
      const unmatched = (await api(app, token).get('/v1/my/scrobblers/unmatched').expect(200))
        .body as Json[];
      expect(unmatched).toEqual([
        {
          media_type: 'anime',
          series: 'Nowhere',
          season: 1,
          ids: {},
          episodes: [1],
          count: 1,
          last_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
        {
          media_type: 'anime',
          series: 'Attack on Titan',
          season: 2,
          ids: {},
          episodes: [26, 27],
          count: 3,
          last_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
      ]);

      await putEntry(app, token, 'anime', 4, { status: 'ongoing', episodes_watched: 2 });
      await api(app, token)
        .put('/v1/my/scrobble-mappings', {
          series: 'attack on titan',
          season: 2,
          title_id: 4,
          episode_offset: -25,
        })
        .expect(200, {
          series: 'attack on titan',
          season: 2,
          media_type: 'anime',
          title_id: 4,
          episode_offset: -25,
        });
      // 26 → 1 (below the entry's 2: nothing), 27 → 2 (reached: nothing).
      expect(await entry('anime', 4)).toMatchObject({ episodes_watched: 2, status: 'ongoing' });
      const left = (await api(app, token).get('/v1/my/scrobblers/unmatched').expect(200))
        .body as Json[];
      expect(left.map((item) => item.series)).toEqual(['Nowhere']);
      // From now on the key goes to the title with the offset.
      expect((await scrobble(url, stop(28)).expect(200)).body).toEqual({
        outcome: 'updated',
        title_id: 4,
        episodes_watched: 3,
      });
      expect((await api(app, token).get('/v1/my/scrobble-mappings').expect(200)).body).toEqual([
        {
          series: 'attack on titan',
          season: 2,
          media_type: 'anime',
          title_id: 4,
          episode_offset: -25,
        },
      ]);
      await api(app, token)
        .delete('/v1/my/scrobble-mappings?series=Attack%20on%20Titan')
        .expect(404);
      await api(app, token)
        .delete('/v1/my/scrobble-mappings?series=Attack%20on%20Titan&season=2')
        .expect(200);
      expect((await scrobble(url, stop(29)).expect(200)).body.outcome).toBe('unmatched');
    });

    it('a mapping creates the entry from replayed requests, without rewatches, with their arrival day', async () => {
      const { url } = await create({ kind: 'generic', name: 'G', rewatches: true });
      for (const episode of [1, 2, 3]) {
        await scrobble(url, { event: 'watched', title: 'Frieren S2', season: 2, episode }).expect(
          200,
        );
      }
      const answer = await api(app, token)
        .put('/v1/my/scrobble-mappings', { series: 'Frieren S2', season: 2, title_id: 7 })
        .expect(200);
      expect(answer.body).toEqual({
        series: 'Frieren S2',
        season: 2,
        media_type: 'anime',
        title_id: 7,
        episode_offset: 0,
      });
      const today = new Date().toISOString().slice(0, 10);
      expect(await entry('anime', 7)).toMatchObject({
        status: 'ongoing',
        episodes_watched: 3,
        start_date: today,
      });
      const history = (await api(app, token).get('/v1/my/anime/7/history').expect(200))
        .body as Json[];
      expect(history.map((event) => event.source)).toEqual(['scrobble', 'scrobble', 'scrobble']);
      expect(history.map((event) => event.client)).toEqual(['generic', 'generic', 'generic']);
    });

    it('a mapping without season is the mapping of season null', async () => {
      const { url } = await create({ kind: 'generic', name: 'G' });
      await scrobble(url, { event: 'watched', title: 'No Season Show', episode: 2 }).expect(200);
      expect(
        (
          await api(app, token)
            .put('/v1/my/scrobble-mappings', { series: 'No Season Show', title_id: 7 })
            .expect(200)
        ).body,
      ).toEqual({
        series: 'No Season Show',
        season: null,
        media_type: 'anime',
        title_id: 7,
        episode_offset: 0,
      });
      // The pending request (no season) was replayed through it.
      expect(await entry('anime', 7)).toMatchObject({ episodes_watched: 2 });
      expect((await api(app, token).get('/v1/my/scrobblers/unmatched').expect(200)).body).toEqual(
        [],
      );
      // The same key as an explicit null: one mapping, replaced.
      await api(app, token)
        .put('/v1/my/scrobble-mappings', { series: 'No Season Show', season: null, title_id: 3 })
        .expect(200);
      expect((await api(app, token).get('/v1/my/scrobble-mappings').expect(200)).body).toEqual([
        {
          series: 'No Season Show',
          season: null,
          media_type: 'anime',
          title_id: 3,
          episode_offset: 0,
        },
      ]);
      await api(app, token)
        .delete('/v1/my/scrobble-mappings?series=No%20Season%20Show')
        .expect(200);
      expect((await api(app, token).get('/v1/my/scrobble-mappings').expect(200)).body).toEqual([]);
    });

    it('a manga mapping needs ratings.manga too (it writes manga entries when it replays)', async () => {
      const { token: animeOnly } = await createUserWithToken(app, [SCOPES.anime]);
      const generic = await create({ kind: 'generic', name: 'G' });
      // Kept for the owner of the full token; the anime-only user has nothing pending.
      await scrobble(generic.url, {
        event: 'read',
        media_type: 'manga',
        title: 'Nowhere',
        chapter: 3,
      }).expect(200);
      const refused = await api(app, animeOnly)
        .put('/v1/my/scrobble-mappings', { series: 'Nowhere', media_type: 'manga', title_id: 1 })
        .expect(403);
      expect(refused.headers['content-type']).toBe(PROBLEM);
      expect(refused.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="ratings.manga"',
      );
      expect((refused.body as Json).type).toMatch(/\/insufficient-scope$/);
      expect((await api(app, animeOnly).get('/v1/my/scrobble-mappings').expect(200)).body).toEqual(
        [],
      );
      // An anime mapping is the route's own scope.
      await api(app, animeOnly)
        .put('/v1/my/scrobble-mappings', { series: 'Nowhere', title_id: 1 })
        .expect(200);
      // The full token's manga mapping replays its pending request.
      await api(app, token)
        .put('/v1/my/scrobble-mappings', { series: 'Nowhere', media_type: 'manga', title_id: 1 })
        .expect(200);
      expect(await entry('manga', 1)).toMatchObject({ chapters_read: 3 });
    });

    it('refuses bad mappings by field and unknown titles with 404', async () => {
      const bad = async (body: Json, field: string) => {
        const answer = await api(app, token).put('/v1/my/scrobble-mappings', body).expect(400);
        expect(
          (answer.body as { errors: { field: string }[] }).errors.map((e) => e.field),
        ).toContain(field);
      };
      await bad({ season: 1, title_id: 1 }, 'series');
      await bad({ series: 'x', season: -1, title_id: 1 }, 'season');
      await bad({ series: 'x', season: '2', title_id: 1 }, 'season');
      await bad({ series: 'x', season: 1, title_id: 1, episode_offset: 5001 }, 'episode_offset');
      await bad({ series: 'x', season: 1, title_id: 1, media_type: 'novel' }, 'media_type');
      await bad({ series: 'x', season: null, title_id: 'one' }, 'title_id');
      await api(app, token)
        .put('/v1/my/scrobble-mappings', { series: 'x', season: null, title_id: 99 })
        .expect(404);
      await api(app, token)
        .put('/v1/my/scrobble-mappings', {
          series: 'x',
          season: null,
          media_type: 'manga',
          title_id: 1,
        })
        .expect(200);
      await api(app, token).delete('/v1/my/scrobble-mappings').expect(400);
      await api(app, token).delete('/v1/my/scrobble-mappings?series=x').expect(404);
      await api(app, token)
        .delete('/v1/my/scrobble-mappings?series=x&media_type=manga')
        .expect(200);
    });
  });

  it('the purges remove recent scrobbles past the window and unmatched requests after 90 days', async () => {
    const { url } = await create({ kind: 'generic', name: 'G' });
    await scrobble(url, { event: 'watched', title: 'Sousou no Frieren', episode: 1 }).expect(200);
    await scrobble(url, { event: 'watched', title: 'Nowhere', episode: 1 }).expect(200);
    const dataSource = app.get(DataSource);
    const count = async (table: string) =>
      Number((await dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
    expect([await count('scrobble_recent'), await count('scrobble_unmatched')]).toEqual([1, 1]);
    expect(await app.get(PurgeRunner).runOnce(new Date(Date.now() + 9 * 60 * 1000))).not.toBeNull();
    expect([await count('scrobble_recent'), await count('scrobble_unmatched')]).toEqual([1, 1]);
    expect(
      await app.get(PurgeRunner).runOnce(new Date(Date.now() + 11 * 60 * 1000)),
    ).not.toBeNull();
    expect([await count('scrobble_recent'), await count('scrobble_unmatched')]).toEqual([0, 1]);
    expect(
      await app.get(PurgeRunner).runOnce(new Date(Date.now() + 91 * 24 * 3600 * 1000)),
    ).not.toBeNull();
    expect(await count('scrobble_unmatched')).toBe(0);
    // Past the window, the same episode is a scrobble again (here: unchanged).
    expect(
      (
        await scrobble(url, { event: 'watched', title: 'Sousou no Frieren', episode: 1 }).expect(
          200,
        )
      ).body.outcome,
    ).toBe('unchanged');
  });

  it('counts outcomes in /metrics as scrobbles_total{kind,outcome}', async () => {
    const { url } = await create({ kind: 'generic', name: 'G' });
    await scrobble(url, fixture('generic/watched')).expect(200);
    await scrobble(url, fixture('generic/watched')).expect(200);
    const metrics = (await request(server()).get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/scrobbles_total\{kind="generic",outcome="created"\} [1-9]/);
    expect(metrics).toMatch(/scrobbles_total\{kind="generic",outcome="duplicate"\} [1-9]/);
    expect(metrics).not.toContain(pathOf(url).split('/').pop()!);
  });
});

describe('scrobbling across instances, and the access log', () => {
  it('two instances receiving the same stop twice write once; the secret never reaches the log', async () => {
    const lines: string[] = [];
    const first = await createTestApp({ LOG_LEVEL: 'info' }, [], {
      write: (line: string) => void lines.push(line),
    });
    const second = await createTestApp();
    try {
      await resetDatabase(first);
      await importTitles(first, CATALOG);
      const { token } = await createUserWithToken(first);
      const created = (
        await api(first, token)
          .post('/v1/my/scrobblers', { kind: 'jellyfin', name: 'J' })
          .expect(201)
      ).body as { url: string };
      const path = new URL(created.url).pathname;
      const body = JSON.stringify(fixture('jellyfin/playback-stop-episode'));
      const send = (instance: NestFastifyApplication) =>
        request(instance.getHttpServer())
          .post(path)
          .set('Content-Type', 'text/plain')
          .send(body)
          .expect(200);
      const answers = await Promise.all([send(first), send(second), send(first), send(second)]);
      const outcomes = answers.map((answer) => (answer.body as Json).outcome).sort();
      expect(outcomes).toEqual(['created', 'duplicate', 'duplicate', 'duplicate']);
      const history = (await api(first, token).get('/v1/my/anime/1/history').expect(200))
        .body as Json[];
      expect(history).toHaveLength(1);
      const secret = path.split('/').pop()!;
      const access = lines.filter((line) => line.includes('"route":"/scrobble/:secret"'));
      expect(access.length).toBeGreaterThanOrEqual(2);
      expect(lines.join('\n')).not.toContain(secret);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('120 requests per 60 s per secret, counted in Redis across instances; then 429 with Retry-After', async () => {
    const env = {
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `scrobble-${randomBytes(6).toString('hex')}:`,
    };
    const first = await createTestApp(env);
    const second = await createTestApp(env);
    try {
      await resetDatabase(first);
      await importTitles(first, CATALOG);
      const { token } = await createUserWithToken(first);
      const made = async (name: string) =>
        new URL(
          (
            (
              await api(first, token)
                .post('/v1/my/scrobblers', { kind: 'generic', name })
                .expect(201)
            ).body as {
              url: string;
            }
          ).url,
        ).pathname;
      const [busy, quiet] = [await made('busy'), await made('quiet')];
      const send = (instance: NestFastifyApplication, path: string) =>
        request(instance.getHttpServer())
          .post(path)
          .set('Content-Type', 'application/json')
          .send('{"event":"paused"}');
      for (let i = 0; i < 120; i++) await send(i % 2 === 0 ? first : second, busy).expect(200);
      const refused = await send(second, busy).expect(429);
      expect(refused.headers['content-type']).toBe(PROBLEM);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      const counted = await send(first, quiet).expect(200);
      expect(counted.headers['ratelimit-limit']).toBe('120');
      expect(counted.headers['ratelimit-remaining']).toBe('119');
      expect(JSON.stringify(refused.body)).not.toContain(busy.split('/').pop()!);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('a secret over its limit is 429 before its Content-Type and body are looked at', async () => {
    const app = await createTestApp({ SCROBBLE_RATE_LIMIT: '2' });
    try {
      await resetDatabase(app);
      await importTitles(app, CATALOG);
      const { token } = await createUserWithToken(app);
      const created = (
        await api(app, token).post('/v1/my/scrobblers', { kind: 'generic', name: 'G' }).expect(201)
      ).body as { url: string };
      const path = new URL(created.url).pathname;
      const post = () => request(app.getHttpServer()).post(path);
      await post().set('Content-Type', 'application/json').send('{"event":').expect(400);
      await post().set('Content-Type', 'application/xml').send('<a/>').expect(415);
      const oversize = Buffer.alloc(2 * 1024 * 1024 + 1, 0x78);
      for (const test of [
        post().set('Content-Type', 'application/json').send('{"event":'),
        post().set('Content-Type', 'application/json').send(oversize),
        post().set('Content-Type', 'application/xml').send(oversize),
        post(),
        post()
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ event: 'watched', title: 'Sousou no Frieren', episode: 1 })),
      ]) {
        const answer = await test;
        expect(answer.status).toBe(429);
        expect(answer.headers['content-type']).toBe(PROBLEM);
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(answer.headers['ratelimit-limit']).toBe('2');
        expect(answer.headers['ratelimit-remaining']).toBe('0');
        expect(JSON.stringify(answer.body)).not.toContain(path.split('/').pop()!);
      }
      // An unknown secret is still 404, not counted against anyone.
      await request(app.getHttpServer())
        .post('/scrobble/not-a-secret-at-all')
        .set('Content-Type', 'application/json')
        .send('{"event":')
        .expect(404);
      await expectNothingWritten(app, token);
    } finally {
      await app.close();
    }
  });
});
