import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { TitleRecord } from '../src/catalog/catalog-file';
import { anime, createUser, importTitles, issueToken, manga } from './factories';
import { api, createTestApp, USER_AGENT, useTestApp } from './utils/test-app';

/*
 * Every member of the statistics (contract §22) for hand-built lists. The expected values are
 * derived here from the fixtures, by the contract's definitions written out plainly (loops over
 * the fixture entries, the history as GET /history shows it), not by the service's code.
 */

type Json = Record<string, unknown>;
interface Facts {
  year?: number | null;
  season?: string | null;
  format?: string | null;
  tags?: string[] | null;
}
interface Fixture {
  id: number;
  title: Partial<TitleRecord>;
  facts: Facts;
  /** The PUT body of the entry, or null: written by the MAL import (`imported`). */
  entry: Json;
}

const MANY_TAGS = Array.from({ length: 60 }, (_, i) => `tag-${String(i).padStart(2, '0')}`);

const ANIME: Fixture[] = [
  {
    id: 1,
    title: { episodes: 24, episodeMinutes: 24 },
    facts: { year: 2019, season: 'spring', format: 'tv', tags: ['Action', 'Drama', 'action'] },
    entry: { status: 'completed', public_rating: 10, public_fraction: 0, episodes_watched: 24 },
  },
  {
    id: 2,
    title: { episodes: 1, episodeMinutes: null },
    facts: { year: 2019, season: 'fall', format: 'movie', tags: ['action'] },
    entry: { status: 'completed', public_rating: 0, public_fraction: 1, episodes_watched: 1 },
  },
  {
    id: 3,
    title: { episodes: 12, episodeMinutes: 30 },
    facts: {
      year: 2020,
      season: 'winter',
      format: 'tv',
      tags: ['comedy', 'action', 'slice of life'],
    },
    entry: { status: 'ongoing', public_rating: 1, public_fraction: 0, episodes_watched: 5 },
  },
  {
    id: 4,
    title: { episodes: 13, episodeMinutes: 20 },
    facts: {},
    entry: { status: 'dropped', public_rating: 1, public_fraction: 1, episodes_watched: 3 },
  },
  {
    id: 5,
    title: { episodes: 6, episodeMinutes: 25 },
    facts: { year: 2020, season: null, format: 'ova', tags: ['drama'] },
    entry: { status: 'on_hold', episodes_watched: 2 },
  },
  {
    id: 6,
    title: { episodes: 12, episodeMinutes: 24 },
    facts: { year: 2019, season: 'spring', format: 'tv', tags: ['drama', 'secret-tag'] },
    entry: {
      status: 'completed',
      public_rating: 8,
      public_fraction: 5,
      episodes_watched: 12,
      is_visible: false,
    },
  },
  {
    id: 7,
    title: { episodes: 12, episodeMinutes: 24 },
    facts: { year: 2021, season: 'summer', format: 'ona', tags: MANY_TAGS },
    entry: { status: 'bookmark' },
  },
  {
    id: 8,
    title: { episodes: 3, episodeMinutes: 10 },
    facts: {
      year: 2018,
      season: 'winter',
      format: 'special',
      tags: ['comedy', 'zebra', 'émotion'],
    },
    entry: { status: 'not_interested', public_rating: 5, public_fraction: 5, episodes_watched: 3 },
  },
  {
    id: 9,
    title: { episodes: 1, episodeMinutes: 24 },
    facts: { year: 2022, season: 'fall', format: 'music', tags: ['émotion', 'zebra', 'Zebra'] },
    entry: { status: 'ongoing', public_rating: 7, public_fraction: 9, episodes_watched: 1 },
  },
];
/** Written by a MyAnimeList import: its events are `import` and never in `activity`. */
const IMPORTED = { id: 10, status: 'completed', episodes_watched: 12 };

const MANGA: Fixture[] = [
  {
    id: 1,
    title: { chapters: 100, volumes: 10 },
    facts: { year: 2018, season: 'spring', format: 'manga', tags: ['romance', 'drama'] },
    entry: {
      status: 'completed',
      public_rating: 7,
      public_fraction: 5,
      chapters_read: 50,
      volumes_read: 5,
    },
  },
  {
    id: 2,
    title: { chapters: null, volumes: null },
    facts: { year: 2018, format: 'novel' },
    entry: { status: 'ongoing', chapters_read: 10, is_visible: false },
  },
  {
    id: 3,
    title: { chapters: 40, volumes: 4 },
    facts: {},
    entry: { status: 'dropped', public_rating: 1, chapters_read: 3, volumes_read: 1 },
  },
];

const STATUSES = ['ongoing', 'completed', 'on_hold', 'dropped', 'not_interested', 'bookmark'];
const SEASON_ORDER = ['winter', 'spring', 'summer', 'fall'];

/** The catalog's record of a fixture, its facts as the import file gives them (raw). */
function titleOf(mediaType: 'anime' | 'manga', fixture: Fixture): TitleRecord {
  const make = mediaType === 'anime' ? anime : manga;
  const tags = (fixture.facts.tags ?? []).map((tag) => tag.toLowerCase());
  return make(fixture.id, {
    ...fixture.title,
    facts: {
      year: fixture.facts.year ?? null,
      season: (fixture.facts.season ?? null) as never,
      format: fixture.facts.format ?? null,
      tags: tags.filter((tag, i) => tags.indexOf(tag) === i),
    },
  });
}

// ---- The contract's definitions, written out for the fixtures --------------------------------

interface Model {
  mediaType: 'anime' | 'manga';
  score: number;
  status: string;
  minutes: number;
  visible: boolean;
  facts: Facts;
}

function halfUp(sum: number, count: number): number {
  // Exact for these small integers: x.5 goes up.
  return Math.floor(sum / count + 0.5);
}

function meanScore(entries: Model[]): number | null {
  const scored = entries.filter((entry) => entry.score > 0);
  return scored.length === 0
    ? null
    : halfUp(
        scored.reduce((sum, entry) => sum + entry.score, 0),
        scored.length,
      );
}

function groupOf(entries: Model[]) {
  return {
    count: entries.length,
    mean_score: meanScore(entries),
    minutes: entries.reduce((sum, entry) => sum + entry.minutes, 0),
  };
}

function codePointOrder(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

function lowerUnique(tags: string[] | null | undefined): string[] {
  const lower = (tags ?? []).map((tag) => tag.toLowerCase());
  return lower.filter((tag, i) => lower.indexOf(tag) === i);
}

/** Every member but `totals` and `activity`, from the entries. */
function expectedBody(entries: Model[]) {
  const scored = entries.filter((entry) => entry.score > 0);
  const histogram: Record<string, number> = {};
  for (let k = 1; k <= 10; k++) {
    histogram[String(k)] = scored.filter((entry) => Math.ceil(entry.score / 10) === k).length;
  }
  const values = <T>(of: (entry: Model) => T | null | undefined) => {
    const found: T[] = [];
    for (const entry of entries) {
      const value = of(entry);
      if (value !== null && value !== undefined && !found.includes(value)) found.push(value);
    }
    return found;
  };
  const years = values((entry) => entry.facts.year);
  const seasons = values((entry) =>
    entry.facts.year && entry.facts.season ? `${entry.facts.year}/${entry.facts.season}` : null,
  );
  const formats = values((entry) => entry.facts.format);
  const tags = [...new Set(entries.flatMap((entry) => lowerUnique(entry.facts.tags)))];
  const byCountThenName = (
    a: { count: number; name: string },
    b: { count: number; name: string },
  ) => b.count - a.count || codePointOrder(a.name, b.name);
  return {
    scores: { count: scored.length, mean: meanScore(entries), histogram },
    by_status: Object.fromEntries(
      STATUSES.map((status) => [status, entries.filter((entry) => entry.status === status).length]),
    ),
    by_year: years
      .sort((a, b) => b - a)
      .map((year) => ({ year, ...groupOf(entries.filter((entry) => entry.facts.year === year)) })),
    by_season: seasons
      .map((key) => key.split('/'))
      .sort(
        ([y1, s1], [y2, s2]) =>
          Number(y2) - Number(y1) || SEASON_ORDER.indexOf(s1) - SEASON_ORDER.indexOf(s2),
      )
      .map(([year, season]) => ({
        year: Number(year),
        season,
        ...groupOf(
          entries.filter(
            (entry) => entry.facts.year === Number(year) && entry.facts.season === season,
          ),
        ),
      })),
    by_format: formats
      .map((name) => ({ name, ...groupOf(entries.filter((entry) => entry.facts.format === name)) }))
      .sort(byCountThenName)
      .map(({ name, ...rest }) => ({ format: name, ...rest })),
    by_tag: tags
      .map((name) => ({
        name,
        ...groupOf(entries.filter((entry) => lowerUnique(entry.facts.tags).includes(name))),
      }))
      .sort(byCountThenName)
      .slice(0, 50)
      .map(({ name, ...rest }) => ({ tag: name, ...rest })),
  };
}

function animeModels(): Model[] {
  const models = ANIME.map((fixture) => {
    const episodes = Number(fixture.entry.episodes_watched ?? 0);
    return {
      mediaType: 'anime' as const,
      score:
        Number(fixture.entry.public_rating ?? 0) * 10 + Number(fixture.entry.public_fraction ?? 0),
      status: String(fixture.entry.status),
      minutes: episodes * (fixture.title.episodeMinutes ?? 24),
      visible: fixture.entry.is_visible !== false,
      facts: fixture.facts,
    };
  });
  models.push({
    mediaType: 'anime',
    score: 0,
    status: IMPORTED.status,
    minutes: IMPORTED.episodes_watched * 24,
    visible: true,
    facts: {},
  });
  return models;
}

function mangaModels(): Model[] {
  return MANGA.map((fixture) => ({
    mediaType: 'manga' as const,
    score:
      Number(fixture.entry.public_rating ?? 0) * 10 + Number(fixture.entry.public_fraction ?? 0),
    status: String(fixture.entry.status),
    minutes:
      8 * Number(fixture.entry.chapters_read ?? 0) + 72 * Number(fixture.entry.volumes_read ?? 0),
    visible: fixture.entry.is_visible !== false,
    facts: fixture.facts,
  }));
}

/** `YYYY-MM` of an instant in a time zone, by Intl's calendar. */
function monthIn(zone: string, at: string | number): string {
  const text = new Date(at).toLocaleDateString('en-CA', { timeZone: zone });
  return text.slice(0, 7);
}

// ---- The spec ---------------------------------------------------------------------------------

describe('statistics (contract §22)', () => {
  let app: NestFastifyApplication;
  let token: string;
  let ownerName: string;

  useTestApp((created) => (app = created), { PUBLIC_LISTS: 'true' });

  const get = (path: string, as = token) => api(app, as).get(path);
  const put = (path: string, body: Json, as = token) => api(app, as).put(path, body).expect(200);

  async function seed(): Promise<void> {
    await importTitles(app, [
      ...ANIME.map((fixture) => titleOf('anime', fixture)),
      anime(10),
      ...MANGA.map((fixture) => titleOf('manga', fixture)),
    ]);
    const owner = await createUser(app, 'Zoë <b>&"stats"');
    ownerName = owner.name;
    token = await issueToken(app, owner);
    for (const fixture of ANIME) await put(`/v1/my/anime/${fixture.id}/ratings`, fixture.entry);
    for (const fixture of MANGA) await put(`/v1/my/manga/${fixture.id}/ratings`, fixture.entry);
    const file = [
      '<?xml version="1.0" encoding="UTF-8" ?><myanimelist>',
      '<myinfo><user_id>1</user_id><user_name>x</user_name><user_export_type>1</user_export_type></myinfo>',
      `<anime><series_animedb_id>${5000 + IMPORTED.id}</series_animedb_id><my_status>Completed</my_status>`,
      `<my_watched_episodes>${IMPORTED.episodes_watched}</my_watched_episodes><my_score>0</my_score>`,
      '<my_start_date>0000-00-00</my_start_date><my_finish_date>0000-00-00</my_finish_date>',
      '<update_on_import>1</update_on_import></anime></myanimelist>',
    ].join('');
    await request(app.getHttpServer())
      .post('/v1/my/anime/import')
      .set('User-Agent', USER_AGENT)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/xml')
      .send(file)
      .expect(200);
  }

  it('computes every member but activity for anime and manga, private entries included', async () => {
    await seed();
    for (const [mediaType, models] of [
      ['anime', animeModels()],
      ['manga', mangaModels()],
    ] as const) {
      const response = await get(`/v1/my/statistics/${mediaType}`).expect(200);
      const profile = await get('/v1/my/profile').expect(200);
      const { media_type, totals, activity, ...rest } = response.body as Json;
      expect(media_type).toBe(mediaType);
      expect(totals).toEqual(profile.body.statistics[mediaType]);
      expect(rest).toEqual(expectedBody(models));
      expect(Array.isArray(activity)).toBe(true);
      expect(Object.keys(response.body)).toEqual([
        'media_type',
        'totals',
        'scores',
        'by_status',
        'by_year',
        'by_season',
        'by_format',
        'by_tag',
        'activity',
      ]);
    }
    // The edges, spelled out (the model above must agree with them).
    const body = (await get('/v1/my/statistics/anime').expect(200)).body;
    expect(body.scores.histogram).toEqual({
      1: 2, // scores 1 and 10
      2: 1, // 11
      3: 0,
      4: 0,
      5: 0,
      6: 1, // 55
      7: 0,
      8: 1, // 79
      9: 1, // 85 (private, counted for the owner)
      10: 1, // 100
    });
    expect(body.scores).toMatchObject({ count: 7, mean: 49 }); // 341 / 7 = 48.7
    // 2019: 100, 1 and 85 → 62; spring 2019: 100 and 85 → 92.5 → 93.
    expect(body.by_year).toContainEqual({ year: 2019, count: 3, mean_score: 62, minutes: 888 });
    expect(body.by_season[0]).toEqual({
      year: 2022,
      season: 'fall',
      count: 1,
      mean_score: 79,
      minutes: 24,
    });
    expect(body.by_season).toContainEqual({
      year: 2019,
      season: 'spring',
      count: 2,
      mean_score: 93,
      minutes: 576 + 288,
    });
    // An entry without a score: mean_score null; title 2's unknown episode length counts 24.
    expect(body.by_format).toContainEqual({
      format: 'ova',
      count: 1,
      mean_score: null,
      minutes: 50,
    });
    expect(body.by_format).toContainEqual({
      format: 'movie',
      count: 1,
      mean_score: 1,
      minutes: 24,
    });
    // Titles without facts (4, 10) are in no group; 'Action'/'action' is one tag, counted once.
    expect(body.by_tag[0]).toEqual({ tag: 'action', count: 3, mean_score: 37, minutes: 750 });
    expect(body.by_tag).toHaveLength(50);
    const tagNames = body.by_tag.map((item: { tag: string }) => item.tag);
    // Same count: by code point, so 'zebra' (z, U+007A) before 'émotion' (é, U+00E9).
    expect(tagNames.indexOf('zebra')).toBeLessThan(tagNames.indexOf('émotion'));
    expect(tagNames).not.toContain('Zebra');
  });

  it('counts activity per month of the time zone, from api and scrobble events only', async () => {
    await seed();
    // A rewatch restarts progress (its rise counts from 0), a correction downwards subtracts
    // nothing, and a later rise counts again.
    const restartedIds = new Set<number>();
    const latestEventId = async (path: string) =>
      Number((await get(`${path}/history?limit=1`).expect(200)).body[0].id);
    await put('/v1/my/anime/1/ratings', {
      status: 'ongoing',
      is_rewatching: true,
      episodes_watched: 3,
    });
    restartedIds.add(await latestEventId('/v1/my/anime/1'));
    await put('/v1/my/anime/1/ratings', { status: 'ongoing', episodes_watched: 10 });
    await put('/v1/my/anime/3/ratings', { status: 'ongoing', episodes_watched: 2 });
    await put('/v1/my/anime/3/ratings', { status: 'completed', episodes_watched: 4 });
    await put('/v1/my/manga/1/ratings', {
      status: 'ongoing',
      is_rereading: true,
      chapters_read: 4,
      volumes_read: 1,
    });
    restartedIds.add(-(await latestEventId('/v1/my/manga/1')));
    await put('/v1/my/manga/1/ratings', { status: 'ongoing', chapters_read: 2 });

    // Events of earlier months, as a scrobbler or an import would have left them: written to the
    // history table directly, since a test cannot write in the past.
    const zone = 'Pacific/Kiritimati'; // UTC+14: many UTC instants fall in another month there.
    await put('/v1/my/settings', { time_zone: zone });
    const dataSource = app.get(DataSource);
    const [{ id: userId }] = await dataSource.query<{ id: number }[]>(
      'SELECT id FROM users WHERE name = ?',
      [ownerName],
    );
    const now = Date.now();
    const monthStartUtc = (back: number) => {
      const date = new Date(now);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - back, 1);
    };
    const past = [
      // 10 h before a UTC month starts: the next month in Kiritimati.
      {
        id: 900001,
        title: 2,
        at: monthStartUtc(2) - 10 * 3600_000,
        source: 'scrobble',
        from: 0,
        to: 1,
        status: 'completed',
      },
      {
        id: 900002,
        title: 3,
        at: monthStartUtc(3) + 20 * 3600_000,
        source: 'api',
        from: 1,
        to: 5,
        status: null,
      },
      {
        id: 900003,
        title: 3,
        at: monthStartUtc(3) + 30 * 3600_000,
        source: 'import',
        from: 5,
        to: 9,
        status: 'completed',
      },
      {
        id: 900004,
        title: 4,
        at: monthStartUtc(22) + 15 * 86400_000,
        source: 'scrobble',
        from: null,
        to: 2,
        status: null,
      },
      // Older than the 24 months: left out.
      {
        id: 900005,
        title: 4,
        at: monthStartUtc(26),
        source: 'scrobble',
        from: 2,
        to: 3,
        status: null,
      },
    ];
    for (const event of past) {
      await dataSource.query(
        `INSERT INTO history_events (user_id, media_type, id, title_id, at_ms, source, client,
          viewing, status_to, episodes_watched_from, episodes_watched_to)
          VALUES (?, 'anime', ?, ?, ?, ?, NULL, 1, ?, ?, ?)`,
        [userId, event.id, event.title, event.at, event.source, event.status, event.from, event.to],
      );
    }

    for (const mediaType of ['anime', 'manga'] as const) {
      const history = (await get(`/v1/my/${mediaType}/history?limit=1000`).expect(200))
        .body as Json[];
      const progressField = mediaType === 'anime' ? 'episodes_watched' : 'chapters_read';
      const minutesOfTitle = (id: number) =>
        mediaType === 'anime'
          ? ([...ANIME, { id: 10, title: { episodeMinutes: 24 } }].find((f) => f.id === id)!.title
              .episodeMinutes ?? 24)
          : 8;
      const rise = (event: Json, field: string, restarted: boolean) => {
        const change = event[field] as { from: number | null; to: number } | undefined;
        if (!change) return 0;
        const from = restarted ? 0 : (change.from ?? 0);
        return Math.max(0, (change.to ?? 0) - from);
      };
      const currentMonth = monthIn(zone, now);
      const [cy, cm] = currentMonth.split('-').map(Number);
      const oldest = new Date(Date.UTC(cy, cm - 1 - 23, 1)).toISOString().slice(0, 7);
      const months = new Map<
        string,
        { month: string; progress: number; minutes: number; completed: number }
      >();
      for (const event of history) {
        if (event.source !== 'api' && event.source !== 'scrobble') continue;
        const month = monthIn(zone, String(event.at));
        if (month < oldest || month > currentMonth) continue;
        const status = event.status as { to: string } | undefined;
        // The writes that set is_rewatching/is_rereading (manga ids kept negated).
        const restarted = restartedIds.has(
          mediaType === 'anime' ? Number(event.id) : -Number(event.id),
        );
        const progress = rise(event, progressField, restarted);
        const minutes =
          mediaType === 'anime'
            ? progress * minutesOfTitle(Number(event.title_id))
            : 8 * progress + 72 * rise(event, 'volumes_read', restarted);
        const item = months.get(month) ?? { month, progress: 0, minutes: 0, completed: 0 };
        item.progress += progress;
        item.minutes += minutes;
        if (status?.to === 'completed') item.completed += 1;
        months.set(month, item);
      }
      const expected = [...months.values()].sort((a, b) => (a.month < b.month ? 1 : -1));
      const body = (await get(`/v1/my/statistics/${mediaType}`).expect(200)).body;
      expect(body.activity).toEqual(expected);
      if (mediaType === 'anime') {
        // Spelled out: the current month holds the creations (24+1+5+3+2+12+3+1 = 51 of the
        // PUTs), the rewatch's 3, the 7 after it, 0 for the correction and 2 after it.
        expect(body.activity[0]).toMatchObject({ month: currentMonth, progress: 51 + 3 + 7 + 2 });
        expect(body.activity[0].completed).toBe(4); // titles 1, 2, 6 created, 3 completed
        expect(body.activity.map((item: { month: string }) => item.month)).toContain(
          monthIn(zone, past[0].at),
        );
        expect(monthIn(zone, past[0].at)).not.toBe(monthIn('UTC', past[0].at));
        expect(body.activity).toHaveLength(4); // now, 2, 3 and 22 months back (UTC)
      } else {
        // 50 + 10 + 3 created; the reread counts its 4 chapters and 1 volume; the correction 0.
        expect(body.activity).toEqual([
          {
            month: currentMonth,
            progress: 50 + 10 + 3 + 4,
            minutes: 8 * 67 + 72 * (5 + 1 + 1),
            completed: 1,
          },
        ]);
      }
    }

    // Deleting an event (the scrobble of two months back) takes it out at once, ETag included.
    const before = await get('/v1/my/statistics/anime').expect(200);
    await api(app, token).delete(`/v1/my/anime/2/history/${past[0].id}`).expect(200);
    const after = await get('/v1/my/statistics/anime')
      .set('If-None-Match', before.headers.etag)
      .expect(200);
    expect(after.body.activity).toHaveLength(3);
    expect(after.body.activity).not.toContainEqual(
      expect.objectContaining({ month: monthIn(zone, past[0].at) }),
    );
    // The time zone is read at read time: in UTC the months are UTC months.
    await put('/v1/my/settings', { time_zone: 'UTC' });
    const utc = await get('/v1/my/statistics/anime').expect(200);
    const utcMonths = [Date.now(), past[1].at, past[3].at].map((at) => monthIn('UTC', at));
    expect(utc.body.activity.map((item: { month: string }) => item.month)).toEqual(
      [...new Set(utcMonths)].sort().reverse(),
    );
  });

  it('answers 304 to its ETag, and a new ETag when a catalog re-import changes a fact', async () => {
    await seed();
    const first = await get('/v1/my/statistics/anime').expect(200);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    await get('/v1/my/statistics/anime').set('If-None-Match', etag).expect(304);
    // Another user's writes change nothing of it.
    const other = await issueToken(app, await createUser(app, 'other'));
    await put('/v1/my/anime/1/ratings', { status: 'ongoing' }, other);
    expect((await get('/v1/my/statistics/anime').expect(200)).headers.etag).toBe(etag);

    // Title 1 gets another tag and loses its year: a re-import describes each title whole.
    const changed = titleOf('anime', ANIME[0]);
    changed.facts = { year: null, season: null, format: 'tv', tags: ['mecha'] };
    await importTitles(app, [changed]);
    const after = await get('/v1/my/statistics/anime').set('If-None-Match', etag).expect(200);
    expect(after.headers.etag).not.toBe(etag);
    expect(after.body.by_tag).toContainEqual({
      tag: 'mecha',
      count: 1,
      mean_score: 100,
      minutes: 576,
    });
    expect(after.body.by_year).toContainEqual({
      year: 2019,
      count: 2,
      mean_score: 43,
      minutes: 312,
    });
    await get('/v1/my/statistics/anime').set('If-None-Match', after.headers.etag).expect(304);
    // The manga statistics hold none of it: their ETag stays.
  });

  it('is 404 for an unknown media type, and needs the user.profile scope', async () => {
    await seed();
    const unknown = await get('/v1/my/statistics/novel').expect(404);
    expect(unknown.headers['content-type']).toContain('application/problem+json');
    expect(unknown.body.detail).toContain('novel');
    const owner = await createUser(app, 'scoped');
    const animeOnly = await issueToken(app, owner, ['ratings.anime']);
    await get('/v1/my/statistics/anime', animeOnly).expect(403);
    await request(app.getHttpServer())
      .get('/v1/my/statistics/anime')
      .set('User-Agent', USER_AGENT)
      .expect(401);
    // An empty list: every member present, zero or empty.
    const empty = await get('/v1/my/statistics/manga', await issueToken(app, owner)).expect(200);
    expect(empty.body).toMatchObject({
      scores: { count: 0, mean: null },
      by_status: {
        ongoing: 0,
        completed: 0,
        on_hold: 0,
        dropped: 0,
        not_interested: 0,
        bookmark: 0,
      },
      by_year: [],
      by_season: [],
      by_format: [],
      by_tag: [],
      activity: [],
    });
  });

  describe('public variant (PUBLIC_LISTS=true)', () => {
    const publicPath = (name: string, mediaType = 'anime') =>
      `/v1/users/${encodeURIComponent(name)}/statistics/${mediaType}`;

    it('computes the same over visible entries only, without activity; private entries leave no trace', async () => {
      await seed();
      const reader = await issueToken(app, await createUser(app, 'reader'));
      for (const [mediaType, models] of [
        ['anime', animeModels()],
        ['manga', mangaModels()],
      ] as const) {
        const response = await get(publicPath(ownerName, mediaType), reader).expect(200);
        const profile = await get(
          `/v1/users/${encodeURIComponent(ownerName)}/profile`,
          reader,
        ).expect(200);
        const { media_type, totals, ...rest } = response.body as Json;
        expect(media_type).toBe(mediaType);
        expect(totals).toEqual(profile.body.statistics[mediaType]);
        expect(rest).toEqual(expectedBody(models.filter((model) => model.visible)));
        expect(response.body).not.toHaveProperty('activity');
        // A user reading their own name sees what others see.
        expect((await get(publicPath(ownerName, mediaType)).expect(200)).body).toEqual(
          response.body,
        );
      }
      const text = (await get(publicPath(ownerName), reader).expect(200)).text;
      expect(text).not.toContain('secret-tag');
      expect(text).not.toContain('"9":1'); // the private 85

      // Private entries written, edited or deleted move nothing public, ETag included.
      const before = await get(publicPath(ownerName), reader).expect(200);
      await put('/v1/my/anime/6/ratings', { status: 'dropped', public_rating: 2 });
      const after = await get(publicPath(ownerName), reader)
        .set('If-None-Match', before.headers.etag)
        .expect(304);
      expect(after.headers.etag).toBe(before.headers.etag);
      // A visible entry's score moves it.
      await put('/v1/my/anime/5/ratings', { status: 'on_hold', public_rating: 6 });
      const moved = await get(publicPath(ownerName), reader).expect(200);
      expect(moved.headers.etag).not.toBe(before.headers.etag);
      expect(moved.body.by_format).toContainEqual({
        format: 'ova',
        count: 1,
        mean_score: 60,
        minutes: 50,
      });
    });

    it('matches names exactly and answers 404 problem+json for an unknown name or media type', async () => {
      await seed();
      await get(publicPath(ownerName.toUpperCase())).expect(404);
      await get(publicPath(`${ownerName} `)).expect(404);
      const unknown = await get(publicPath('nobody')).expect(404);
      expect(unknown.headers['content-type']).toContain('application/problem+json');
      await get(publicPath(ownerName, 'novel')).expect(404);
    });
  });

  describe('with PUBLIC_LISTS off (the default)', () => {
    let closed: NestFastifyApplication;
    beforeAll(async () => {
      closed = await createTestApp();
    });
    afterAll(async () => {
      await closed?.close();
    });

    it('the public variant is an unknown path: 404 problem+json', async () => {
      await seed();
      const response = await api(closed, token)
        .get(`/v1/users/${encodeURIComponent(ownerName)}/statistics/anime`)
        .expect(404);
      expect(response.headers['content-type']).toContain('application/problem+json');
      await api(closed, token).get('/v1/my/statistics/anime').expect(200);
    });
  });
});
