import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SCOPES } from '../src/auth/scopes';
import { anime, createUserWithToken, importTitles, manga, putEntry } from './factories';
import { api, createTestApp, useTestApp } from './utils/test-app';

const EMPTY_ANIME = {
  watching: 0,
  completed: 0,
  on_hold: 0,
  dropped: 0,
  bookmark: 0,
  average: 0,
  episodes: 0,
  rewatched: 0,
  media_minutes: 0,
};
const EMPTY_MANGA = {
  reading: 0,
  completed: 0,
  on_hold: 0,
  dropped: 0,
  bookmark: 0,
  average: 0,
  chapters: 0,
  volumes: 0,
  reread: 0,
  media_minutes: 0,
};

describe('GET /v1/my/profile', () => {
  let app: NestFastifyApplication;

  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, [
      anime(1, { episodes: 64, episodeMinutes: 24 }),
      anime(2, { episodes: 12, episodeMinutes: 10 }),
      anime(3, { episodes: null, episodeMinutes: null }), // unknown minutes: 24 per episode
      anime(4, { episodes: 26, episodeMinutes: 30 }),
      anime(5),
      anime(6),
      manga(1, { chapters: 162, volumes: 18 }),
      manga(2, { chapters: null, volumes: null }),
      manga(3),
    ]);
  });

  async function profileOf(token: string) {
    const response = await api(app, token).get('/v1/my/profile').expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    return response.body;
  }

  it('has exactly the keys of the spec, all integers, for a user with an empty list', async () => {
    const { user, token } = await createUserWithToken(app);
    const profile = await profileOf(token);
    expect(Object.keys(profile)).toEqual(['id', 'name', 'joined_at', 'statistics']);
    expect(Object.keys(profile.statistics)).toEqual(['anime', 'manga']);
    expect(profile).toEqual({
      id: user.id,
      name: user.name,
      joined_at: user.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      statistics: { anime: EMPTY_ANIME, manga: EMPTY_MANGA },
    });
    expect(profile.joined_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(profile.statistics.anime)).toEqual(Object.keys(EMPTY_ANIME));
    expect(Object.keys(profile.statistics.manga)).toEqual(Object.keys(EMPTY_MANGA));
  });

  it('counts every bucket, sums and minutes by hand-computed values', async () => {
    const { token } = await createUserWithToken(app);
    await putEntry(app, token, 'anime', 1, {
      status: 'completed',
      public_rating: 8,
      public_fraction: 5,
      episodes_watched: 64,
      times_rewatched: 2,
    });
    await putEntry(app, token, 'anime', 2, {
      status: 'ongoing',
      public_rating: 7,
      episodes_watched: 5,
      is_visible: false,
    });
    await putEntry(app, token, 'anime', 3, {
      status: 'on_hold',
      episodes_watched: 10,
      times_rewatched: 1,
    });
    await putEntry(app, token, 'anime', 4, {
      status: 'dropped',
      public_rating: 0,
      public_fraction: 5,
      episodes_watched: 3,
    });
    await putEntry(app, token, 'anime', 5, { status: 'bookmark' });
    await putEntry(app, token, 'anime', 6, {
      status: 'not_interested',
      public_rating: 2,
      episodes_watched: 1,
    });
    await putEntry(app, token, 'manga', 1, {
      status: 'ongoing',
      public_rating: 9,
      chapters_read: 100,
      volumes_read: 10,
      times_reread: 3,
    });
    await putEntry(app, token, 'manga', 2, {
      status: 'completed',
      public_rating: 6,
      public_fraction: 4,
      chapters_read: 7,
      volumes_read: 1,
    });
    await putEntry(app, token, 'manga', 3, { status: 'not_interested', chapters_read: 2 });

    const { statistics } = await profileOf(token);
    expect(statistics.anime).toEqual({
      watching: 1,
      completed: 1,
      on_hold: 1,
      dropped: 1,
      bookmark: 1,
      // scores above 0: 85, 70, 5 (0.5 counts), 20 (not_interested still counts) -> 180 / 4 = 45
      average: 45,
      episodes: 64 + 5 + 10 + 3 + 0 + 1,
      rewatched: 3,
      // 64*24 + 5*10 + 10*24 (unknown) + 3*30 + 1*24
      media_minutes: 1536 + 50 + 240 + 90 + 24,
    });
    expect(statistics.manga).toEqual({
      reading: 1,
      completed: 1,
      on_hold: 0,
      dropped: 0,
      bookmark: 0,
      average: 77, // (90 + 64) / 2
      chapters: 109,
      volumes: 11,
      reread: 3,
      media_minutes: 8 * 109 + 72 * 11,
    });
  });

  it('rounds the average half up (8.5 and 7.0 -> 78)', async () => {
    const { token } = await createUserWithToken(app);
    await putEntry(app, token, 'anime', 1, {
      status: 'completed',
      public_rating: 8,
      public_fraction: 5,
    });
    await putEntry(app, token, 'anime', 2, { status: 'completed', public_rating: 7 });
    await putEntry(app, token, 'anime', 3, { status: 'completed' }); // score 0: not averaged
    expect((await profileOf(token)).statistics.anime.average).toBe(78);
  });

  it('rounds a mean below the half down (7.3, 7.0, 7.0 -> 71.0 -> 71; 7.4, 7.0 -> 72)', async () => {
    const { token } = await createUserWithToken(app);
    await putEntry(app, token, 'manga', 1, {
      status: 'completed',
      public_rating: 7,
      public_fraction: 3,
    });
    await putEntry(app, token, 'manga', 2, { status: 'completed', public_rating: 7 });
    await putEntry(app, token, 'manga', 3, { status: 'completed', public_rating: 7 });
    expect((await profileOf(token)).statistics.manga.average).toBe(71);
    await putEntry(app, token, 'manga', 1, {
      status: 'completed',
      public_rating: 7,
      public_fraction: 4,
    });
    await api(app, token).delete('/v1/my/manga/3/ratings').expect(200);
    expect((await profileOf(token)).statistics.manga.average).toBe(72);
  });

  it('follows updates and deletes, and ignores other users', async () => {
    const { token } = await createUserWithToken(app);
    const other = await createUserWithToken(app);
    await putEntry(app, other.token, 'anime', 1, {
      status: 'ongoing',
      public_rating: 10,
      episodes_watched: 64,
    });

    await putEntry(app, token, 'anime', 1, { status: 'ongoing', episodes_watched: 10 });
    let stats = (await profileOf(token)).statistics.anime;
    expect(stats).toMatchObject({
      watching: 1,
      completed: 0,
      episodes: 10,
      average: 0,
      media_minutes: 240,
    });

    await putEntry(app, token, 'anime', 1, {
      status: 'completed',
      episodes_watched: 64,
      public_rating: 9,
    });
    stats = (await profileOf(token)).statistics.anime;
    expect(stats).toMatchObject({
      watching: 0,
      completed: 1,
      episodes: 64,
      average: 90,
      media_minutes: 1536,
    });

    await api(app, token).delete('/v1/my/anime/1/ratings').expect(200);
    expect((await profileOf(token)).statistics.anime).toEqual(EMPTY_ANIME);
    expect((await profileOf(other.token)).statistics.anime).toMatchObject({
      watching: 1,
      average: 100,
      episodes: 64,
    });
  });

  it('is exact across instances: a write through one shows at once in the other', async () => {
    const second = await createTestApp();
    try {
      const { token } = await createUserWithToken(app);
      const profileThroughSecond = async () =>
        (await api(second, token).get('/v1/my/profile').expect(200)).body.statistics.anime;
      expect(await profileThroughSecond()).toEqual(EMPTY_ANIME);
      await putEntry(app, token, 'anime', 1, { status: 'ongoing', episodes_watched: 2 });
      expect(await profileThroughSecond()).toMatchObject({ watching: 1, episodes: 2 });
      await api(app, token).delete('/v1/my/anime/1/ratings').expect(200);
      expect(await profileThroughSecond()).toEqual(EMPTY_ANIME);
    } finally {
      await second.close();
    }
  });

  it('follows a catalog update of minutes per episode at once', async () => {
    const { token } = await createUserWithToken(app);
    await putEntry(app, token, 'anime', 1, { status: 'ongoing', episodes_watched: 10 });
    expect((await profileOf(token)).statistics.anime.media_minutes).toBe(240);
    await importTitles(app, [anime(1, { episodes: 64, episodeMinutes: 30 })]);
    expect((await profileOf(token)).statistics.anime.media_minutes).toBe(300);
  });

  it('needs the user.profile scope', async () => {
    const { token } = await createUserWithToken(app, [SCOPES.anime, SCOPES.manga]);
    const response = await api(app, token).get('/v1/my/profile').expect(403);
    expect(response.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="user.profile"',
    );
  });
});
