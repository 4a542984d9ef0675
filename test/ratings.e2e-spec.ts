import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { RatingEntry } from '../src/ratings/rating-entry.entity';
import { anime, createUserWithToken, importTitles, manga } from './factories';
import { expectProblem } from './utils/problem';
import { api, useTestApp } from './utils/test-app';
import { sleep } from './utils/wait';
import { fieldDefaults, viewKeys } from './utils/entry-keys';

type Media = 'anime' | 'manga';
type Body = Record<string, unknown>;

/*
 * The catalog every test starts from. anime 5001 has the internal id that anime 1 has as its
 * external id, so that mixing the two id spaces up cannot go unnoticed.
 */
const CATALOG = [
  anime(1), // 24 episodes, external_id 5001
  anime(2, { episodes: null }), // episode count unknown
  anime(3, { externalId: null }),
  anime(40, { episodes: 150000 }), // more episodes than the cap for unknown counts
  anime(5001, { externalId: 7 }),
  manga(1), // 100 chapters, 10 volumes, external_id 9001
  manga(2, { chapters: null, volumes: null }),
  manga(40, { chapters: 150000, volumes: 20000 }),
];

/** contract §7, in order. */
const ANIME_KEYS = viewKeys('anime');
const MANGA_KEYS = viewKeys('manga');
const ANIME_ONLY = ['episodes_watched', 'is_rewatching', 'times_rewatched', 'rewatch_desire'];
const MANGA_ONLY = [
  'chapters_read',
  'volumes_read',
  'is_rereading',
  'times_reread',
  'reread_desire',
];
const STATUSES = ['ongoing', 'completed', 'on_hold', 'dropped', 'not_interested', 'bookmark'];
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const BODY_LIMIT = 16384;

const ratingsPath = (media: Media, id: number | string, query = '') =>
  `/v1/my/${media}/${id}/ratings${query}`;

/** What a response says, in a form a whole table of cases can be compared against at once. */
interface Outcome {
  status: number;
  problemJson: boolean;
  fields?: string[];
}

function outcomeOf(response: Response): Outcome {
  const body = response.body as {
    status?: unknown;
    success?: unknown;
    errors?: { field: string }[];
  };
  return {
    status: response.status,
    problemJson:
      /^application\/problem\+json/.test(response.headers['content-type'] ?? '') &&
      body.success === false &&
      body.status === response.status,
    ...(body.errors ? { fields: body.errors.map((e) => e.field).sort() } : {}),
  };
}

/** A problem+json outcome naming exactly `fields`. */
const problem = (status: number, fields: string[]): Outcome => ({
  status,
  problemJson: true,
  fields: [...fields].sort(),
});
/** A problem+json outcome, whatever fields it names. */
const anyProblem = (status: number): Outcome =>
  expect.objectContaining({ status, problemJson: true });

/**
 * Sends every case one after the other, then compares all outcomes in one assertion, so that a
 * failure lists each case (by its label) that differs.
 */
async function expectOutcomes<C>(
  cases: C[],
  send: (sent: C) => PromiseLike<Response>,
  expected: (sent: C) => Outcome,
  label: (sent: C) => unknown = (sent) => sent,
): Promise<void> {
  const seen: { sent: unknown; outcome: Outcome }[] = [];
  for (const sent of cases) seen.push({ sent: label(sent), outcome: outcomeOf(await send(sent)) });
  expect(seen).toEqual(cases.map((sent) => ({ sent: label(sent), outcome: expected(sent) })));
}

/** The message given for `field` in a validation problem. */
function messageFor(response: Response, field: string): string {
  return (response.body.errors as { field: string; message: string }[]).find(
    (e) => e.field === field,
  )!.message;
}

describe('ratings API', () => {
  let app: NestFastifyApplication;
  let token: string;
  let client: ReturnType<typeof api>;

  const put = (media: Media, id: number | string, body: unknown, query = '') =>
    client.put(ratingsPath(media, id, query), body);

  /** PUT with a raw body and Content-Type. */
  const putRaw = (media: Media, id: number, raw: string, contentType = 'application/json') =>
    client.put(ratingsPath(media, id)).set('Content-Type', contentType).send(raw);

  async function putOk(media: Media, id: number, body: Body): Promise<void> {
    const response = await put(media, id, body);
    expect({ status: response.status, body: response.body as unknown }).toEqual({
      status: 200,
      body: { success: true },
    });
  }

  async function getOne(media: Media, id: number | string, query = ''): Promise<Body[]> {
    const response = await client.get(ratingsPath(media, id, query));
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    return response.body as Body[];
  }

  async function readEntry(media: Media, id: number): Promise<Body> {
    const entries = await getOne(media, id);
    expect(entries).toHaveLength(1);
    return entries[0];
  }

  async function getAll(media: Media, as = client): Promise<Body[]> {
    const response = await as.get(`/v1/my/${media}/ratings`);
    expect(response.status).toBe(200);
    return response.body as Body[];
  }

  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, CATALOG);
    ({ token } = await createUserWithToken(app));
    client = api(app, token);
  });

  describe('create and read shape', () => {
    it('creates an anime entry from {"status"} alone with every default, in the §7 shape', async () => {
      const before = Math.floor(Date.now() / 1000) * 1000;
      await putOk('anime', 1, { status: 'bookmark' });
      const after = Date.now();

      const entries = await getOne('anime', 1);
      expect(entries).toHaveLength(1);
      const [entry] = entries;
      expect(Object.keys(entry)).toEqual(ANIME_KEYS);
      // The contract's defaults, and those of any field added since (docs/extending.md).
      expect(entry).toEqual({
        ...fieldDefaults('anime'),
        id: 1,
        external_id: 5001,
        title: 'Anime 1',
        status: 'bookmark',
        is_visible: true,
        public_rating: 0,
        public_fraction: 0,
        personal_rating: 0,
        episodes_watched: 0,
        start_date: null,
        end_date: null,
        is_rewatching: false,
        times_rewatched: 0,
        rewatch_desire: 0,
        notes: '',
        priority: 0,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      // Create sets both timestamps to now.
      expect(entry.updated_at).toBe(entry.created_at);
      const created = Date.parse(entry.created_at as string);
      expect(created).toBeGreaterThanOrEqual(before);
      expect(created).toBeLessThanOrEqual(after);
    });

    it('creates a manga entry from {"status"} alone with every default, in the §7 shape', async () => {
      await putOk('manga', 1, { status: 'ongoing' });

      const [entry] = await getOne('manga', 1);
      expect(Object.keys(entry)).toEqual(MANGA_KEYS);
      expect(entry).toEqual({
        ...fieldDefaults('manga'),
        id: 1,
        external_id: 9001,
        title: 'Manga 1',
        status: 'ongoing',
        is_visible: true,
        public_rating: 0,
        public_fraction: 0,
        personal_rating: 0,
        chapters_read: 0,
        volumes_read: 0,
        start_date: null,
        end_date: null,
        is_rereading: false,
        times_reread: 0,
        reread_desire: 0,
        notes: '',
        priority: 0,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      expect(entry.updated_at).toBe(entry.created_at);
    });

    it('stores every anime field as sent, and a title without external_id reads null', async () => {
      const fields = {
        status: 'completed',
        is_visible: false,
        public_rating: 9,
        public_fraction: 5,
        personal_rating: 95,
        episodes_watched: 24,
        start_date: '2024-01-02',
        end_date: '2024-03-30',
        is_rewatching: true,
        times_rewatched: 2,
        rewatch_desire: 4,
        notes: 'Rewatch the finale',
        priority: 3,
      };
      await putOk('anime', 3, fields);
      const entry = await readEntry('anime', 3);
      expect(Object.keys(entry)).toEqual(ANIME_KEYS);
      expect(entry).toMatchObject({ id: 3, external_id: null, title: 'Anime 3', ...fields });
    });

    it('stores every manga field as sent', async () => {
      const fields = {
        status: 'on_hold',
        is_visible: false,
        public_rating: 7,
        public_fraction: 1,
        personal_rating: 70,
        chapters_read: 99,
        volumes_read: 9,
        start_date: '2020-02-29',
        end_date: '2020-02-29',
        is_rereading: true,
        times_reread: 1000,
        reread_desire: 5,
        notes: 'Volume 9 cliffhanger',
        priority: 1,
      };
      await putOk('manga', 1, fields);
      const entry = await readEntry('manga', 1);
      expect(Object.keys(entry)).toEqual(MANGA_KEYS);
      expect(entry).toMatchObject({ id: 1, external_id: 9001, title: 'Manga 1', ...fields });
    });

    it('accepts every status', async () => {
      for (const status of STATUSES) {
        await putOk('anime', 1, { status });
        expect((await readEntry('anime', 1)).status).toBe(status);
      }
    });

    it('answers PUT with exactly {"success":true} and 200, on create and on update', async () => {
      for (let i = 0; i < 2; i++) {
        const response = await put('anime', 1, { status: 'ongoing' });
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.text).toBe('{"success":true}');
      }
    });
  });

  describe('update', () => {
    const full = {
      status: 'ongoing',
      is_visible: false,
      public_rating: 8,
      public_fraction: 3,
      personal_rating: 81,
      episodes_watched: 12,
      start_date: '2024-01-02',
      end_date: '2024-02-03',
      is_rewatching: true,
      times_rewatched: 3,
      rewatch_desire: 2,
      notes: 'halfway',
      priority: 2,
    };

    it('keeps every omitted field on a partial update', async () => {
      await putOk('anime', 1, full);
      const before = await readEntry('anime', 1);

      await putOk('anime', 1, { status: 'completed', notes: 'done' });

      expect(await readEntry('anime', 1)).toEqual({
        ...before,
        status: 'completed',
        notes: 'done',
      });
    });

    it('keeps omitted manga fields too (rereading fields share storage with rewatching)', async () => {
      await putOk('manga', 1, { status: 'ongoing', chapters_read: 50, times_reread: 2 });
      await putOk('manga', 1, { status: 'ongoing', volumes_read: 5 });
      expect(await readEntry('manga', 1)).toMatchObject({
        chapters_read: 50,
        volumes_read: 5,
        times_reread: 2,
        is_rereading: false,
      });
    });

    it('requires status on update too, and a rejected update changes nothing', async () => {
      await putOk('anime', 1, full);
      const before = await readEntry('anime', 1);

      const response = await put('anime', 1, { public_rating: 5 });
      expectProblem(response, 400, ['status']);
      expect(response.body.type).toMatch(/\/problems\/validation$/);

      expect(await readEntry('anime', 1)).toEqual(before);
    });

    it('requires status on create', async () => {
      expectProblem(await put('manga', 1, {}), 400, ['status']);
      expect(await getOne('manga', 1)).toEqual([]);
    });
  });

  describe('ranges', () => {
    /** [media, field, title id, lowest allowed, highest allowed] */
    const RANGES: [Media, string, number, number, number][] = [
      ['anime', 'public_rating', 1, 0, 10],
      ['anime', 'public_fraction', 1, 0, 9],
      ['anime', 'personal_rating', 1, 0, 100],
      ['anime', 'rewatch_desire', 1, 0, 5],
      ['anime', 'priority', 1, 0, 3],
      ['anime', 'times_rewatched', 1, 0, 1000],
      ['anime', 'episodes_watched', 1, 0, 24],
      ['anime', 'episodes_watched', 2, 0, 100000],
      ['anime', 'episodes_watched', 40, 0, 150000],
      ['manga', 'public_rating', 1, 0, 10],
      ['manga', 'public_fraction', 1, 0, 9],
      ['manga', 'personal_rating', 1, 0, 100],
      ['manga', 'reread_desire', 1, 0, 5],
      ['manga', 'priority', 1, 0, 3],
      ['manga', 'times_reread', 1, 0, 1000],
      ['manga', 'chapters_read', 1, 0, 100],
      ['manga', 'chapters_read', 2, 0, 100000],
      ['manga', 'chapters_read', 40, 0, 150000],
      ['manga', 'volumes_read', 1, 0, 10],
      ['manga', 'volumes_read', 2, 0, 10000],
      ['manga', 'volumes_read', 40, 0, 20000],
    ];

    it.each(RANGES)('%s %s on title %i: %i to %i', async (media, field, id, min, max) => {
      for (const value of [min - 1, max + 1]) {
        const response = await put(media, id, { status: 'completed', [field]: value });
        expectProblem(response, 400, [field]);
      }

      await putOk(media, id, { status: 'completed', [field]: max });
      // Outside the range on update as well; the stored value stays.
      expectProblem(await put(media, id, { status: 'completed', [field]: max + 1 }), 400, [field]);
      expect((await readEntry(media, id))[field]).toBe(max);

      await putOk(media, id, { status: 'completed', [field]: min });
      expect((await readEntry(media, id))[field]).toBe(min);
    });

    it('public_rating + public_fraction/10 is at most 10.0', async () => {
      await putOk('anime', 1, { status: 'completed', public_rating: 9, public_fraction: 9 });
      await putOk('anime', 1, { status: 'completed', public_rating: 10, public_fraction: 0 });
      const response = await put('anime', 1, {
        status: 'completed',
        public_rating: 10,
        public_fraction: 1,
      });
      expectProblem(response, 400, ['public_fraction']);
      expect(await readEntry('anime', 1)).toMatchObject({ public_rating: 10, public_fraction: 0 });
    });

    it('checks rating + fraction on the merged entry, whichever of the two is sent', async () => {
      await putOk('manga', 1, { status: 'completed', public_rating: 10 });
      expectProblem(await put('manga', 1, { status: 'completed', public_fraction: 1 }), 400, [
        'public_fraction',
      ]);

      await putOk('manga', 1, { status: 'completed', public_rating: 9, public_fraction: 5 });
      expectProblem(await put('manga', 1, { status: 'completed', public_rating: 10 }), 400, [
        'public_fraction',
      ]);
      expect(await readEntry('manga', 1)).toMatchObject({ public_rating: 9, public_fraction: 5 });
    });

    it('checks the counts against the stored title, merged with the stored value', async () => {
      await putOk('anime', 1, { status: 'ongoing', episodes_watched: 20 });
      // The catalog now says the title has fewer episodes than the entry holds.
      await importTitles(app, [anime(1, { episodes: 12 })]);

      const response = await put('anime', 1, { status: 'completed' });
      expectProblem(response, 400, ['episodes_watched']);
      expect(messageFor(response, 'episodes_watched')).toMatch(/12/);
      await putOk('anime', 1, { status: 'completed', episodes_watched: 12 });
      expect((await readEntry('anime', 1)).episodes_watched).toBe(12);
    });

    it('checks manga chapters and volumes against the stored title after merging', async () => {
      await putOk('manga', 1, { status: 'ongoing', chapters_read: 90, volumes_read: 9 });
      await importTitles(app, [manga(1, { chapters: 80, volumes: 8 })]);
      expectProblem(await put('manga', 1, { status: 'ongoing', priority: 1 }), 400, [
        'chapters_read',
        'volumes_read',
      ]);
    });

    it('accepts notes of 10000 characters and refuses 10001', async () => {
      await putOk('anime', 1, { status: 'ongoing', notes: 'x'.repeat(10000) });
      expect((await readEntry('anime', 1)).notes).toBe('x'.repeat(10000));
      expectProblem(await put('anime', 1, { status: 'ongoing', notes: 'y'.repeat(10001) }), 400, [
        'notes',
      ]);
    });

    it('counts notes in characters (code points), not UTF-16 units, and keeps them intact', async () => {
      // 10000 characters, 11000 UTF-16 units, 13000 bytes: fits the body limit.
      const notes = 'a'.repeat(9000) + '😀'.repeat(1000);
      await putOk('manga', 1, { status: 'ongoing', notes });
      expect((await readEntry('manga', 1)).notes).toBe(notes);
      expectProblem(await put('manga', 1, { status: 'ongoing', notes: `${notes}😀` }), 400, [
        'notes',
      ]);
    });
  });

  describe('types, nulls and unknown fields', () => {
    /** [media, field, value]: each is a 400 naming the field; JSON types are never coerced. */
    const WRONG_TYPES: [Media, string, unknown][] = [
      ['anime', 'status', 'finished'],
      ['anime', 'status', 'Completed'],
      ['anime', 'status', ''],
      ['anime', 'status', 1],
      ['anime', 'status', ['completed']],
      ['anime', 'public_rating', '5'],
      ['anime', 'public_rating', 1.5],
      ['anime', 'public_rating', true],
      ['anime', 'public_rating', [5]],
      ['anime', 'public_rating', { value: 5 }],
      ['anime', 'public_fraction', '0'],
      ['anime', 'personal_rating', 50.5],
      ['anime', 'episodes_watched', '12'],
      ['anime', 'times_rewatched', false],
      ['anime', 'rewatch_desire', 2.5],
      ['anime', 'priority', '1'],
      ['anime', 'is_visible', 1],
      ['anime', 'is_visible', 0],
      ['anime', 'is_visible', 'true'],
      ['anime', 'is_rewatching', 'false'],
      ['anime', 'touch', 1],
      ['anime', 'touch', 'true'],
      ['anime', 'use_external_id', 'true'],
      ['anime', 'use_external_id', 1],
      ['anime', 'notes', 5],
      ['anime', 'notes', ['a']],
      ['anime', 'notes', {}],
      ['anime', 'start_date', 20240101],
      ['anime', 'start_date', true],
      ['anime', 'end_date', ''],
      ['anime', 'end_date', {}],
      ['manga', 'chapters_read', '5'],
      ['manga', 'volumes_read', 1.5],
      ['manga', 'is_rereading', 1],
      ['manga', 'times_reread', '2'],
      ['manga', 'reread_desire', true],
      ['manga', 'is_visible', 'false'],
    ];

    it('refuses every wrong JSON type without coercion, naming the field', async () => {
      await expectOutcomes(
        WRONG_TYPES,
        ([media, field, value]) => put(media, 1, { status: 'completed', [field]: value }),
        ([, field]) => problem(400, [field]),
      );
      expect(await getAll('anime')).toEqual([]);
      expect(await getAll('manga')).toEqual([]);
    });

    it.each([
      ['anime', ANIME_KEYS],
      ['manga', MANGA_KEYS],
    ] as [Media, string[]][])(
      '%s: null is refused for every field but the dates, all named at once',
      async (media, keys) => {
        const writable = keys
          .filter(
            (key) => !['id', 'external_id', 'title', 'created_at', 'updated_at'].includes(key),
          )
          .concat('use_external_id', 'touch');
        const nullable = ['start_date', 'end_date'];
        const body = Object.fromEntries(writable.map((key) => [key, null]));

        expectProblem(
          await put(media, 1, body),
          400,
          writable.filter((key) => !nullable.includes(key)),
        );
        expect(await getOne(media, 1)).toEqual([]);
      },
    );

    it('accepts null for start_date and end_date', async () => {
      await putOk('anime', 1, { status: 'ongoing', start_date: null, end_date: null });
      expect(await readEntry('anime', 1)).toMatchObject({ start_date: null, end_date: null });
    });

    it('refuses unknown fields by name', async () => {
      for (const field of ['foo', 'id', 'created_at', 'rating', 'Status', '']) {
        const response = await put('anime', 1, { status: 'completed', [field]: 1 });
        expectProblem(response, 400, [field]);
        expect(messageFor(response, field)).toMatch(/not a known field/);
      }
      expect(await getOne('anime', 1)).toEqual([]);
    });

    it('refuses unknown fields named like Object.prototype members', async () => {
      await expectOutcomes(
        ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'],
        (field) => putRaw('anime', 1, `{"status":"completed","${field}":1}`),
        (field) => problem(400, [field]),
      );
      expect(await getOne('anime', 1)).toEqual([]);
    });

    it('refuses __proto__, constructor and prototype keys by name, storing nothing and touching no prototype', async () => {
      const raws = [
        '{"status":"completed","__proto__":{"status":"dropped","polluted":1}}',
        '{"status":"completed","constructor":{"prototype":{"polluted":1}}}',
        '{"status":"completed","prototype":{"polluted":1}}',
        '{"status":"completed","prototype":1}',
        '{"status":"completed","__proto__":1,"foo":2,"public_rating":11}',
      ];
      await expectOutcomes(
        raws,
        (raw) => putRaw('anime', 1, raw),
        (raw) =>
          problem(
            400,
            Object.keys(JSON.parse(raw) as object).filter((key) => key !== 'status'),
          ),
      );
      expect(await getOne('anime', 1)).toEqual([]);
      expect(Object.prototype).not.toHaveProperty('polluted');
      const named = await putRaw('anime', 1, raws[0]);
      expect(messageFor(named, '__proto__')).toBe('is not a known field');
    });

    it('refuses every manga field on anime, each named and explained', async () => {
      const body = Object.fromEntries(MANGA_ONLY.map((field) => [field, 1]));
      const response = await put('anime', 1, { status: 'completed', ...body });
      expectProblem(response, 400, MANGA_ONLY);
      for (const field of MANGA_ONLY) expect(messageFor(response, field)).toMatch(/manga field/);
    });

    it('refuses every anime field on manga, each named and explained', async () => {
      const body = Object.fromEntries(ANIME_ONLY.map((field) => [field, 1]));
      const response = await put('manga', 1, { status: 'completed', ...body });
      expectProblem(response, 400, ANIME_ONLY);
      for (const field of ANIME_ONLY) expect(messageFor(response, field)).toMatch(/anime field/);
    });

    it('names every bad field of a body at once', async () => {
      const response = await put('anime', 1, {
        status: 'finished',
        public_rating: 11,
        personal_rating: '5',
        is_visible: 1,
        start_date: '2023-02-29',
        notes: null,
        foo: 1,
        volumes_read: 1,
      });
      expectProblem(response, 400, [
        'status',
        'public_rating',
        'personal_rating',
        'is_visible',
        'start_date',
        'notes',
        'foo',
        'volumes_read',
      ]);
      expect(response.body.detail).toContain('public_rating');
    });

    it('names every broken cross-field rule at once', async () => {
      const response = await put('anime', 1, {
        status: 'completed',
        public_rating: 10,
        public_fraction: 5,
        start_date: '2024-05-02',
        end_date: '2024-05-01',
        episodes_watched: 25,
      });
      expectProblem(response, 400, ['public_fraction', 'end_date', 'episodes_watched']);
    });
  });

  describe('dates', () => {
    it('accepts real calendar dates and reads them back unchanged', async () => {
      for (const date of ['2024-02-29', '2000-02-29', '2023-12-31', '1970-01-01', '9999-12-31']) {
        await putOk('anime', 1, { status: 'ongoing', start_date: date, end_date: date });
        expect(await readEntry('anime', 1)).toMatchObject({ start_date: date, end_date: date });
      }
    });

    it('refuses anything but a real calendar date YYYY-MM-DD', async () => {
      const badDates = [
        '2023-02-29',
        '1900-02-29',
        '2024-13-01',
        '2024-00-10',
        '2024-04-31',
        '2024-01-00',
        '2024-1-1',
        '24-01-01',
        '2024/01/01',
        '2024-01-01T00:00:00Z',
        ' 2024-01-01',
        'yesterday',
      ];
      await expectOutcomes(
        badDates.flatMap((date) => [
          ['start_date', date],
          ['end_date', date],
        ]),
        ([field, date]) => put('manga', 1, { status: 'ongoing', [field]: date }),
        ([field]) => problem(400, [field]),
      );
      expect(await getOne('manga', 1)).toEqual([]);
    });

    it('null clears a stored date and keeps the other one', async () => {
      await putOk('anime', 1, {
        status: 'ongoing',
        start_date: '2024-01-02',
        end_date: '2024-02-03',
      });
      await putOk('anime', 1, { status: 'ongoing', start_date: null });
      expect(await readEntry('anime', 1)).toMatchObject({
        start_date: null,
        end_date: '2024-02-03',
      });
      await putOk('anime', 1, { status: 'ongoing', end_date: null });
      expect(await readEntry('anime', 1)).toMatchObject({ start_date: null, end_date: null });
    });

    it('refuses end_date before start_date, and allows the same day', async () => {
      expectProblem(
        await put('anime', 1, {
          status: 'ongoing',
          start_date: '2024-05-02',
          end_date: '2024-05-01',
        }),
        400,
        ['end_date'],
      );
      expect(await getOne('anime', 1)).toEqual([]);
      await putOk('anime', 1, {
        status: 'ongoing',
        start_date: '2024-05-02',
        end_date: '2024-05-02',
      });
    });

    it('refuses a start_date moved past the stored end_date', async () => {
      await putOk('anime', 1, {
        status: 'ongoing',
        start_date: '2023-12-31',
        end_date: '2024-01-01',
      });
      expectProblem(await put('anime', 1, { status: 'ongoing', start_date: '2024-01-02' }), 400, [
        'end_date',
      ]);
    });

    it('checks the date order on the merged entry', async () => {
      await putOk('manga', 1, { status: 'ongoing', start_date: '2024-05-02' });
      expectProblem(await put('manga', 1, { status: 'completed', end_date: '2024-05-01' }), 400, [
        'end_date',
      ]);
      await putOk('manga', 1, { status: 'completed', end_date: '2024-06-01' });
      expectProblem(await put('manga', 1, { status: 'completed', start_date: '2024-07-01' }), 400, [
        'end_date',
      ]);
      // Clearing start_date lifts the rule.
      await putOk('manga', 1, { status: 'completed', start_date: null, end_date: '2001-01-01' });
      expect(await readEntry('manga', 1)).toMatchObject({
        start_date: null,
        end_date: '2001-01-01',
      });
    });
  });

  describe('updated_at and touch', () => {
    it('moves updated_at only when touch is true; created_at never moves', async () => {
      await putOk('anime', 1, { status: 'ongoing' });
      const created = await readEntry('anime', 1);
      await sleep(1100);

      await putOk('anime', 1, { status: 'ongoing', episodes_watched: 3 });
      await putOk('anime', 1, { status: 'ongoing', episodes_watched: 4, touch: false });
      const untouched = await readEntry('anime', 1);
      expect(untouched.episodes_watched).toBe(4);
      expect(untouched.updated_at).toBe(created.updated_at);
      expect(untouched.created_at).toBe(created.created_at);

      await putOk('anime', 1, { status: 'ongoing', touch: true });
      const touched = await readEntry('anime', 1);
      expect(touched.updated_at).toMatch(TIMESTAMP);
      expect(Date.parse(touched.updated_at as string)).toBeGreaterThan(
        Date.parse(created.updated_at as string),
      );
      expect(Date.parse(touched.updated_at as string)).toBeLessThanOrEqual(Date.now());
      expect(touched.created_at).toBe(created.created_at);
    });
  });

  describe('use_external_id', () => {
    it('PUT with use_external_id true stores the entry against the internal id', async () => {
      await putOk('anime', 5001, { status: 'completed', use_external_id: true, priority: 2 });

      expect(await readEntry('anime', 1)).toMatchObject({ id: 1, external_id: 5001, priority: 2 });
      // anime 5001 (internal) is another title, which has no entry.
      expect(await getOne('anime', 5001)).toEqual([]);
      expect(await getAll('anime')).toHaveLength(1);
    });

    it('PUT with use_external_id false, or without it, uses the internal id', async () => {
      await putOk('anime', 5001, { status: 'dropped', use_external_id: false });
      await putOk('anime', 1, { status: 'ongoing' });
      const all = await getAll('anime');
      expect(all.map((entry) => [entry.id, entry.status])).toEqual([
        [1, 'ongoing'],
        [5001, 'dropped'],
      ]);
    });

    it('GET one and DELETE take ?use_external_id=true', async () => {
      await putOk('manga', 1, { status: 'ongoing' });

      const entries = await getOne('manga', 9001, '?use_external_id=true');
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ id: 1, external_id: 9001 });

      const response = await client.delete(ratingsPath('manga', 9001, '?use_external_id=true'));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true });
      expect(await getOne('manga', 1)).toEqual([]);
    });

    it('?use_external_id=false means the internal id', async () => {
      await putOk('anime', 1, { status: 'ongoing' });
      expect(await getOne('anime', 1, '?use_external_id=false')).toHaveLength(1);
      expect(await getOne('anime', 5001, '?use_external_id=false')).toEqual([]);
      const response = await client.delete(ratingsPath('anime', 1, '?use_external_id=false'));
      expect(response.status).toBe(200);
      expect(await getOne('anime', 1)).toEqual([]);
    });

    it('an unknown external id is 404 for GET one, PUT and DELETE', async () => {
      // 1 is an internal id, but no anime has external_id 1.
      expectProblem(await client.get(ratingsPath('anime', 1, '?use_external_id=true')), 404);
      expectProblem(await put('anime', 1, { status: 'ongoing', use_external_id: true }), 404);
      expectProblem(await client.delete(ratingsPath('anime', 1, '?use_external_id=true')), 404);
      expect(await getAll('anime')).toEqual([]);
    });

    it('?use_external_id takes only true or false: else 400 for GET one, PUT and DELETE', async () => {
      await putOk('anime', 1, { status: 'ongoing' });
      const send = {
        get: (query: string) => client.get(ratingsPath('anime', 1, query)),
        put: (query: string) => put('anime', 1, { status: 'dropped' }, query),
        delete: (query: string) => client.delete(ratingsPath('anime', 1, query)),
      };
      const values = ['yes', 'TRUE', '1', '', 'true&use_external_id=true'];
      await expectOutcomes(
        values.flatMap((value) =>
          (['get', 'put', 'delete'] as const).map((method) => [method, value] as const),
        ),
        ([method, value]) => send[method](`?use_external_id=${value}`),
        () => problem(400, ['use_external_id']),
      );
      expect((await readEntry('anime', 1)).status).toBe('ongoing');
    });

    it('GET all checks ?use_external_id too, and otherwise ignores it', async () => {
      await putOk('anime', 1, { status: 'ongoing' });
      const bad = await client.get('/v1/my/anime/ratings?use_external_id=yes').expect(400);
      expect(bad.body.errors).toEqual([
        { field: 'use_external_id', message: 'must be true or false' },
      ]);
      const ok = await client.get('/v1/my/anime/ratings?use_external_id=true').expect(200);
      expect(ok.body).toHaveLength(1);
    });
  });

  describe('not found and path ids', () => {
    it('an unknown title is 404 for GET one, PUT and DELETE', async () => {
      for (const [media, id] of [
        ['anime', 999],
        ['manga', 3], // anime 3 exists; manga has its own id space
        ['manga', 5001],
      ] as [Media, number][]) {
        expectProblem(await client.get(ratingsPath(media, id)), 404);
        expectProblem(await put(media, id, { status: 'ongoing' }), 404);
        expectProblem(await client.delete(ratingsPath(media, id)), 404);
      }
      expect(await getAll('manga')).toEqual([]);
    });

    it('GET one of a catalog title without an entry is 200 []', async () => {
      const response = await client.get(ratingsPath('anime', 2));
      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
    });

    it('DELETE when the user has no entry for the title is 404', async () => {
      await putOk('anime', 1, { status: 'ongoing' });
      expectProblem(await client.delete(ratingsPath('anime', 2)), 404);
      // The same id in the other media type is another title.
      expectProblem(await client.delete(ratingsPath('manga', 1)), 404);
      expect(await getOne('anime', 1)).toHaveLength(1);
    });

    it('a path id that is not a positive integer below 2^31 is a 400 for every method', async () => {
      const send = {
        get: (id: string) => client.get(ratingsPath('anime', id)),
        put: (id: string) => put('manga', id, { status: 'ongoing' }),
        delete: (id: string) => client.delete(ratingsPath('anime', id)),
      };
      const ids = [
        '0',
        '-1',
        'abc',
        '1.5',
        '2147483648',
        '99999999999',
        '1e3',
        '%20',
        '1'.repeat(300),
      ];
      await expectOutcomes(
        ids.flatMap((id) =>
          (['get', 'put', 'delete'] as const).map((method) => [method, id] as const),
        ),
        ([method, id]) => send[method](id),
        () => problem(400, ['id']),
      );
    });

    it('a very long path id or media type still meets authentication first', async () => {
      const anonymous = api(app);
      expectProblem(await anonymous.get(ratingsPath('anime', '1'.repeat(300))), 401);
      expectProblem(await anonymous.get(`/v1/my/${'x'.repeat(300)}/ratings`), 401);
      expectProblem(await client.get(`/v1/my/${'x'.repeat(300)}/ratings`), 404);
    });

    it('path id 2147483647 is well-formed: 404 when not in the catalog', async () => {
      expectProblem(await client.get(ratingsPath('anime', 2147483647)), 404);
      expectProblem(await put('manga', 2147483647, { status: 'ongoing' }), 404);
      expectProblem(await client.delete(ratingsPath('anime', 2147483647)), 404);
    });

    it('path id 2147483647 works when the catalog has it', async () => {
      await importTitles(app, [anime(2147483647, { externalId: 2147483647 })]);
      await putOk('anime', 2147483647, { status: 'ongoing' });
      expect(await readEntry('anime', 2147483647)).toMatchObject({
        id: 2147483647,
        external_id: 2147483647,
      });
    });
  });

  describe('request bodies', () => {
    /** A valid body padded with JSON whitespace to exactly `bytes` bytes. */
    const paddedBody = (bytes: number) => {
      const json = '{"status":"completed"}';
      return `${json.slice(0, -1)}${' '.repeat(bytes - json.length)}}`;
    };

    it('accepts a body of exactly 16384 bytes and answers 413 to one byte more', async () => {
      await putRaw('anime', 1, paddedBody(BODY_LIMIT)).expect(200);
      const response = await putRaw('anime', 2, paddedBody(BODY_LIMIT + 1));
      expectProblem(response, 413);
      expect(await getOne('anime', 2)).toEqual([]);
    });

    it('answers 413 to a large body of valid fields', async () => {
      expectProblem(await put('anime', 1, { status: 'ongoing', notes: 'x'.repeat(20000) }), 413);
    });

    it('answers 415 to a Content-Type other than application/json', async () => {
      await expectOutcomes(
        ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'text/json'],
        (contentType) => putRaw('anime', 1, '{"status":"ongoing"}', contentType),
        () => anyProblem(415),
      );
      expect(await getOne('anime', 1)).toEqual([]);
    });

    it('answers 415 when there is no Content-Type', async () => {
      // A Buffer body is the one that supertest sends without adding a Content-Type of its own.
      const request = client.put(ratingsPath('anime', 1)).send(Buffer.from('{"status":"ongoing"}'));
      const response = await request;
      expect(request.get('Content-Type')).toBeUndefined();
      expectProblem(response, 415);
      expect(await getOne('anime', 1)).toEqual([]);
    });

    it('accepts application/json with parameters, in any case', async () => {
      for (const contentType of [
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'Application/JSON',
      ]) {
        const notes = `é ${contentType}`;
        await putRaw('anime', 1, JSON.stringify({ status: 'ongoing', notes }), contentType).expect(
          200,
        );
        expect((await readEntry('anime', 1)).notes).toBe(notes);
      }
    });

    it('answers 400 problem+json to broken JSON and to bodies that are not an object', async () => {
      await expectOutcomes(
        [
          '{"status":"ongoing"',
          '{"status":"ongoing",}',
          "{'status':'ongoing'}",
          '',
          '[{"status":"ongoing"}]',
          '[]',
          '"ongoing"',
          '42',
          'true',
          'null',
        ],
        (raw) => putRaw('anime', 1, raw),
        () => anyProblem(400),
      );
      expect(await getOne('anime', 1)).toEqual([]);
    });
  });

  describe('nothing a client sends is a 5xx', () => {
    const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

    it('answers 400 problem+json to hostile or absurd bodies', async () => {
      await expectOutcomes(
        [
          ['only constructor', '{"constructor":1}'],
          ['constructor.prototype', '{"status":"completed","constructor":{"prototype":{"x":1}}}'],
          ['__proto__', '{"status":"completed","__proto__":{}}'],
          ['__proto__ with a field', '{"status":"completed","__proto__":{"is_visible":false}}'],
          ['notes nested 2500 deep', `{"status":"completed","notes":${nested(2500)}}`],
          ['unknown nested 2500 deep', `{"status":"completed","x":${nested(2500)}}`],
          [
            'array nested 5000 deep',
            `{"status":"completed","x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
          ],
          ['1e309', '{"status":"completed","public_rating":1e309}'],
          ['-1e309', '{"status":"completed","times_rewatched":-1e309}'],
          ['2^53 + 1', '{"status":"completed","episodes_watched":9007199254740993}'],
          ['1e20', '{"status":"completed","times_rewatched":1e20}'],
          ['operator object', '{"status":"completed","public_rating":{"$gt":0}}'],
          ['NUL in status', '{"status":"completed\\u0000"}'],
          ['NUL in a date', '{"status":"completed","start_date":"2024-01-01\\u0000"}'],
          ['lone surrogate', '{"status":"completed\\ud800"}'],
        ],
        ([, raw]) => putRaw('anime', 1, raw),
        () => anyProblem(400),
        ([name]) => name,
      );
      expect(await getOne('anime', 1)).toEqual([]);
    });

    it('stores -0 as 0', async () => {
      await putRaw('anime', 1, '{"status":"completed","public_rating":-0}').expect(200);
      expect((await readEntry('anime', 1)).public_rating).toBe(0);
    });

    it('keeps NUL characters and emoji in notes', async () => {
      const notes = 'a\u0000b 🎉 \u2028 <script>';
      await putOk('anime', 1, { status: 'completed', notes });
      expect((await readEntry('anime', 1)).notes).toBe(notes);
    });
  });

  describe('reads', () => {
    it('GET all is [] without entries', async () => {
      expect(await getAll('anime')).toEqual([]);
      expect(await getAll('manga')).toEqual([]);
    });

    it('GET all orders entries by title id whatever the insertion order', async () => {
      for (const id of [5001, 3, 40, 1, 2]) await putOk('anime', id, { status: 'ongoing' });
      const all = await getAll('anime');
      expect(all.map((entry) => entry.id)).toEqual([1, 2, 3, 40, 5001]);
      for (const entry of all) expect(Object.keys(entry)).toEqual(ANIME_KEYS);
    });

    it('GET all returns only its media type', async () => {
      await putOk('manga', 40, { status: 'ongoing', chapters_read: 7 });
      await putOk('anime', 1, { status: 'completed' });
      await putOk('manga', 2, { status: 'dropped' });

      const animeEntries = await getAll('anime');
      expect(animeEntries).toEqual([await readEntry('anime', 1)]);
      expect(animeEntries[0].title).toBe('Anime 1');

      const mangaEntries = await getAll('manga');
      expect(mangaEntries.map((entry) => [entry.id, entry.title, entry.status])).toEqual([
        [2, 'Manga 2', 'dropped'],
        [40, 'Manga 40', 'ongoing'],
      ]);
      for (const entry of mangaEntries) expect(Object.keys(entry)).toEqual(MANGA_KEYS);
    });
  });

  describe('delete', () => {
    it('answers {"success":true} and the entry is gone', async () => {
      await putOk('anime', 1, { status: 'ongoing' });
      await putOk('anime', 2, { status: 'ongoing' });

      const response = await client.delete(ratingsPath('anime', 1));
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"success":true}');

      expect(await getOne('anime', 1)).toEqual([]);
      expect((await getAll('anime')).map((entry) => entry.id)).toEqual([2]);
      expectProblem(await client.delete(ratingsPath('anime', 1)), 404);
    });

    it('a new PUT after DELETE creates a fresh entry with defaults', async () => {
      await putOk('manga', 1, { status: 'ongoing', chapters_read: 10, notes: 'old' });
      await client.delete(ratingsPath('manga', 1)).expect(200);
      await putOk('manga', 1, { status: 'bookmark' });
      expect(await readEntry('manga', 1)).toMatchObject({
        status: 'bookmark',
        chapters_read: 0,
        notes: '',
      });
    });
  });

  describe('isolation between users', () => {
    it("user B never sees, changes or deletes user A's entries", async () => {
      await putOk('anime', 1, { status: 'completed', notes: "A's notes" });
      await putOk('manga', 1, { status: 'ongoing' });
      const entryOfA = await readEntry('anime', 1);

      const b = api(app, (await createUserWithToken(app)).token);
      expect((await b.get(ratingsPath('anime', 1))).body).toEqual([]);
      expect((await b.get(ratingsPath('manga', 9001, '?use_external_id=true'))).body).toEqual([]);
      expect(await getAll('anime', b)).toEqual([]);
      expect(await getAll('manga', b)).toEqual([]);
      expectProblem(await b.delete(ratingsPath('anime', 1)), 404);
      expectProblem(await b.delete(ratingsPath('manga', 1)), 404);

      // B's own entry for the same title is separate.
      expect((await b.put(ratingsPath('anime', 1), { status: 'dropped' })).status).toBe(200);
      expect((await b.get(ratingsPath('anime', 1))).body).toMatchObject([
        { status: 'dropped', notes: '' },
      ]);
      expect(await readEntry('anime', 1)).toEqual(entryOfA);
      expect(await getAll('manga')).toHaveLength(1);
    });
  });

  describe('concurrency', () => {
    it('20 concurrent PUTs for the same user and title leave exactly one entry', async () => {
      const { user, token: ownToken } = await createUserWithToken(app);
      const own = api(app, ownToken);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          own.put(ratingsPath('anime', 1), { status: 'ongoing', personal_rating: i }),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
      for (const response of responses) expect(response.body).toEqual({ success: true });

      const all = await getAll('anime', own);
      expect(all).toHaveLength(1);
      expect(all[0].personal_rating).toBeGreaterThanOrEqual(0);
      expect(all[0].personal_rating).toBeLessThan(20);
      const stored = await app
        .get(DataSource)
        .getRepository(RatingEntry)
        .countBy({ userId: user.id, mediaType: 'anime', titleId: 1 });
      expect(stored).toBe(1);
    });
  });
});
