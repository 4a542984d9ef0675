import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import { SCOPES } from '../src/auth/scopes';
import { WebhooksService } from '../src/webhooks/webhooks.service';
import { anime, createUserWithToken, importTitles, manga } from './factories';
import { api, createTestApp, resetDatabase, USER_AGENT, useTestApp } from './utils/test-app';
import { sleep } from './utils/wait';
import { malCarriedFields } from './utils/entry-keys';

type Entry = Record<string, unknown> & { id: number; updated_at: string };

function carried(mediaType: 'anime' | 'manga', entries: Entry[]) {
  return entries.map((entry) =>
    Object.fromEntries(malCarriedFields(mediaType).map((field) => [field, entry[field]])),
  );
}

const MYINFO_ANIME = `<myinfo><user_id>1</user_id><user_name>someone</user_name><user_export_type>1</user_export_type></myinfo>`;
const MYINFO_MANGA = `<myinfo><user_id>1</user_id><user_name>someone</user_name><user_export_type>2</user_export_type></myinfo>`;

function animeElement(fields: Record<string, string | number>): string {
  const inner = Object.entries(fields)
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join('');
  return `<anime>${inner}</anime>`;
}

function animeFile(...elements: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8" ?>\n<myanimelist>\n${MYINFO_ANIME}\n${elements.join('\n')}\n</myanimelist>\n`;
}

describe('MyAnimeList XML export and import', () => {
  let app: NestFastifyApplication;

  useTestApp((created) => (app = created));

  beforeEach(async () => {
    await importTitles(app, [
      anime(1, { externalId: 5114, title: 'Fullmetal & <Brotherhood>', episodes: 64 }),
      anime(2, { externalId: 9253, episodes: null, episodeMinutes: null }),
      anime(3, { externalId: 1535, episodes: 37 }),
      anime(4, { externalId: null }),
      anime(5, { externalId: 30, episodes: 12 }),
      manga(1, { externalId: 2, chapters: 162, volumes: 18 }),
      manga(2, { externalId: 13, chapters: null, volumes: null }),
      manga(3, { externalId: 11, chapters: 700, volumes: 72 }),
    ]);
  });

  const put = (token: string, mediaType: string, id: number, body: Record<string, unknown>) =>
    api(app, token).put(`/v1/my/${mediaType}/${id}/ratings`, body).expect(200);
  const list = async (token: string, mediaType: string) =>
    (await api(app, token).get(`/v1/my/${mediaType}/ratings`).expect(200)).body as Entry[];
  const exportOf = (token: string, mediaType: string) =>
    api(app, token).get(`/v1/my/${mediaType}/export`);
  const importInto = (
    token: string,
    mediaType: string,
    body: string | Buffer,
    headers: Record<string, string> = { 'Content-Type': 'application/xml' },
  ) => {
    let test = request(app.getHttpServer())
      .post(`/v1/my/${mediaType}/import`)
      .set('User-Agent', USER_AGENT)
      .set('Authorization', `Bearer ${token}`);
    for (const [name, value] of Object.entries(headers)) test = test.set(name, value);
    return test.send(body);
  };

  async function fillAnime(token: string) {
    await put(token, 'anime', 1, {
      status: 'completed',
      public_rating: 9,
      episodes_watched: 64,
      start_date: '2024-01-02',
      end_date: '2024-03-30',
      times_rewatched: 2,
      rewatch_desire: 4,
      is_rewatching: true,
      priority: 3,
      notes: 'Best]]>ever\u0001 & <b>\nsecond line',
    });
    await put(token, 'anime', 2, { status: 'ongoing', episodes_watched: 7, priority: 1 });
    await put(token, 'anime', 3, { status: 'bookmark' });
    await put(token, 'anime', 4, { status: 'dropped' }); // no external_id: not exported
    await put(token, 'anime', 5, { status: 'not_interested' }); // not exported
  }

  it('exports the anime list in the format, with myinfo totals and the title counts', async () => {
    const { user, token } = await createUserWithToken(app);
    await fillAnime(token);
    const response = await exportOf(token, 'anime').expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/xml/);
    expect(response.headers['content-disposition']).toBe('attachment; filename="animelist.xml"');
    const xml = response.text;
    expect(xml).toContain(`<user_id>${user.id}</user_id>`);
    expect(xml).toContain('<user_export_type>1</user_export_type>');
    expect(xml).toContain('<user_total_anime>3</user_total_anime>');
    expect(xml).toContain('<user_total_watching>1</user_total_watching>');
    expect(xml).toContain('<user_total_completed>1</user_total_completed>');
    expect(xml).toContain('<user_total_plantowatch>1</user_total_plantowatch>');
    expect(xml.match(/<anime>/g)).toHaveLength(3);
    const first = /<anime>([\s\S]*?)<\/anime>/.exec(xml)![1];
    const names = [...first.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '').matchAll(/<(\w+)>/g)].map(
      (match) => match[1],
    );
    expect(names).toEqual([
      'series_animedb_id',
      'series_title',
      'series_type',
      'series_episodes',
      'my_id',
      'my_watched_episodes',
      'my_start_date',
      'my_finish_date',
      'my_rated',
      'my_score',
      'my_storage',
      'my_storage_value',
      'my_status',
      'my_comments',
      'my_times_watched',
      'my_rewatch_value',
      'my_priority',
      'my_tags',
      'my_rewatching',
      'my_rewatching_ep',
      'my_discuss',
      'my_sns',
      'update_on_import',
    ]);
    expect(first).toContain('<series_animedb_id>5114</series_animedb_id>');
    expect(first).toContain('<series_title><![CDATA[Fullmetal & <Brotherhood>]]></series_title>');
    expect(first).toContain('<series_episodes>64</series_episodes>');
    expect(first).toContain('<my_status>Completed</my_status>');
    expect(first).toContain('<my_rewatch_value>High</my_rewatch_value>');
    expect(first).toContain('<my_priority>High</my_priority>');
    expect(first).toContain('<my_rewatching>1</my_rewatching>');
    expect(first).toContain(
      '<my_comments><![CDATA[Best]]]]><![CDATA[>ever\uFFFD & <b>\nsecond line]]></my_comments>',
    );
    expect(first).toContain('<update_on_import>1</update_on_import>');
    expect(xml).toContain('<series_episodes>0</series_episodes>'); // unknown count
    expect(xml).toContain('<my_start_date>0000-00-00</my_start_date>');
    expect(xml).toContain('<my_status>Plan to Watch</my_status>');
  });

  it.each(['anime', 'manga'] as const)(
    'round trip (%s): export, then import into another user’s empty list, gives the same entries',
    async (mediaType) => {
      const alice = await createUserWithToken(app);
      if (mediaType === 'anime') {
        await fillAnime(alice.token);
      } else {
        await put(alice.token, 'manga', 1, {
          status: 'ongoing',
          public_rating: 7,
          chapters_read: 120,
          volumes_read: 13,
          is_rereading: true,
          times_reread: 1,
          reread_desire: 5,
          priority: 2,
          start_date: '2023-02-28',
          notes: 'CDATA ]]> inside',
        });
        await put(alice.token, 'manga', 2, { status: 'on_hold', chapters_read: 5 });
        await put(alice.token, 'manga', 3, { status: 'dropped', end_date: '2020-12-31' });
      }
      const exported = await exportOf(alice.token, mediaType).expect(200);

      const bob = await createUserWithToken(app);
      const result = await importInto(bob.token, mediaType, exported.text).expect(200);
      expect(result.body).toEqual({ created: 3, updated: 0, unchanged: 0, skipped: [] });

      const expected = carried(
        mediaType,
        (await list(alice.token, mediaType)).filter(
          (entry) => entry.external_id !== null && entry.status !== 'not_interested',
        ),
      ).map((entry) => ({
        ...entry,
        priority: entry.priority === 3 ? 2 : entry.priority,
        notes: (entry.notes as string).replace('\u0001', '\uFFFD'),
      }));
      expect(carried(mediaType, await list(bob.token, mediaType))).toEqual(expected);

      // The same file again changes nothing.
      const again = await importInto(bob.token, mediaType, exported.text).expect(200);
      expect(again.body).toEqual({ created: 0, updated: 0, unchanged: 3, skipped: [] });
    },
  );

  it('imports a real-shaped MyAnimeList anime export with the expected values', async () => {
    const { token } = await createUserWithToken(app);
    const xml = `<?xml version="1.0" encoding="UTF-8" ?>
<!--
 Created by XML Export feature at MyAnimeList.net
 Version 1.1.0
-->

<myanimelist>

	<myinfo>
		<user_id>1234567</user_id>
		<user_name><![CDATA[someone]]></user_name>
		<user_export_type>1</user_export_type>
		<user_total_anime>3</user_total_anime>
		<user_total_watching>1</user_total_watching>
		<user_total_completed>1</user_total_completed>
		<user_total_onhold>1</user_total_onhold>
		<user_total_dropped>0</user_total_dropped>
		<user_total_plantowatch>0</user_total_plantowatch>
	</myinfo>

	<anime>
		<series_animedb_id>5114</series_animedb_id>
		<series_title><![CDATA[Fullmetal Alchemist: Brotherhood]]></series_title>
		<series_type>TV</series_type>
		<series_episodes>64</series_episodes>
		<my_id>0</my_id>
		<my_watched_episodes>64</my_watched_episodes>
		<my_start_date>2019-04-00</my_start_date>
		<my_finish_date>2019-06-21</my_finish_date>
		<my_rated></my_rated>
		<my_score>10</my_score>
		<my_storage></my_storage>
		<my_storage_value>0.00</my_storage_value>
		<my_status>Completed</my_status>
		<my_comments><![CDATA[Brothers & alchemy]]></my_comments>
		<my_times_watched>255</my_times_watched>
		<my_rewatch_value>Very High</my_rewatch_value>
		<my_priority>LOW</my_priority>
		<my_tags><![CDATA[classic, shounen]]></my_tags>
		<my_rewatching>0</my_rewatching>
		<my_rewatching_ep>0</my_rewatching_ep>
		<my_discuss>1</my_discuss>
		<my_sns>default</my_sns>
		<update_on_import>0</update_on_import>
	</anime>
	<anime>
		<series_animedb_id>9253</series_animedb_id>
		<series_title><![CDATA[Steins;Gate]]></series_title>
		<my_watched_episodes>12</my_watched_episodes>
		<my_start_date>0000-00-00</my_start_date>
		<my_finish_date>0000-00-00</my_finish_date>
		<my_score>0</my_score>
		<my_status>On Hold</my_status>
		<my_comments><![CDATA[]]></my_comments>
		<my_times_watched>0</my_times_watched>
		<my_rewatch_value></my_rewatch_value>
		<my_priority>MEDIUM</my_priority>
		<my_tags><![CDATA[]]></my_tags>
		<my_rewatching>NO</my_rewatching>
		<update_on_import>1</update_on_import>
	</anime>
	<anime>
		<series_animedb_id>1535</series_animedb_id>
		<my_status>1</my_status>
		<my_watched_episodes>3</my_watched_episodes>
		<my_priority>high</my_priority>
		<update_on_import>1</update_on_import>
	</anime>
</myanimelist>
`;
    const result = await importInto(token, 'anime', xml, {
      'Content-Type': 'text/xml; charset=UTF-8',
    }).expect(200);
    expect(result.body).toEqual({ created: 3, updated: 0, unchanged: 0, skipped: [] });
    const entries = await list(token, 'anime');
    expect(entries.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(entries[0]).toMatchObject({
      status: 'completed',
      public_rating: 10,
      public_fraction: 0,
      episodes_watched: 64,
      start_date: null,
      end_date: '2019-06-21',
      times_rewatched: 255,
      rewatch_desire: 5,
      priority: 0,
      is_rewatching: false,
      notes: 'Brothers & alchemy\nTags: classic, shounen',
      is_visible: true,
      personal_rating: 0,
    });
    expect(entries[1]).toMatchObject({
      status: 'on_hold',
      episodes_watched: 12,
      start_date: null,
      end_date: null,
      rewatch_desire: 0,
      priority: 1,
      notes: '',
    });
    expect(entries[2]).toMatchObject({ status: 'ongoing', episodes_watched: 3, priority: 2 });
  });

  it('imports a real-shaped MyAnimeList manga export with the expected values', async () => {
    const { token } = await createUserWithToken(app);
    const xml = `<?xml version="1.0" encoding="UTF-8" ?>
<myanimelist>
	<myinfo>
		<user_id>1234567</user_id>
		<user_name>someone</user_name>
		<user_export_type>2</user_export_type>
		<user_total_manga>2</user_total_manga>
	</myinfo>
	<manga>
		<manga_mangadb_id>2</manga_mangadb_id>
		<manga_title><![CDATA[Berserk]]></manga_title>
		<manga_volumes>0</manga_volumes>
		<manga_chapters>0</manga_chapters>
		<my_id>0</my_id>
		<my_read_volumes>41</my_read_volumes>
		<my_read_chapters>162</my_read_chapters>
		<my_start_date>2010-01-15</my_start_date>
		<my_finish_date>0000-00-00</my_finish_date>
		<my_scanalation_group><![CDATA[]]></my_scanalation_group>
		<my_score>9</my_score>
		<my_storage></my_storage>
		<my_retail_volumes>0</my_retail_volumes>
		<my_status>Reading</my_status>
		<my_comments><![CDATA[]]></my_comments>
		<my_times_read>3</my_times_read>
		<my_tags><![CDATA[dark]]></my_tags>
		<my_priority>Low</my_priority>
		<my_reread_value>2</my_reread_value>
		<my_rereading>YES</my_rereading>
		<my_discuss>YES</my_discuss>
		<my_sns>default</my_sns>
		<update_on_import>1</update_on_import>
	</manga>
	<manga>
		<manga_mangadb_id>13</manga_mangadb_id>
		<my_status>Plan to Read</my_status>
		<my_rereading>0</my_rereading>
		<update_on_import>1</update_on_import>
	</manga>
</myanimelist>`;
    const result = await importInto(token, 'manga', xml).expect(200);
    expect(result.body.skipped).toEqual([
      {
        external_id: 2,
        reason: 'invalid',
        detail: "volumes_read must be at most 18, the title's volume count",
      },
    ]);
    expect(result.body).toMatchObject({ created: 1, updated: 0, unchanged: 0 });
    const fixed = xml.replace(
      '<my_read_volumes>41</my_read_volumes>',
      '<my_read_volumes>18</my_read_volumes>',
    );
    expect((await importInto(token, 'manga', fixed).expect(200)).body).toEqual({
      created: 1,
      updated: 0,
      unchanged: 1,
      skipped: [],
    });
    const entries = await list(token, 'manga');
    expect(entries[0]).toMatchObject({
      status: 'ongoing',
      public_rating: 9,
      chapters_read: 162,
      volumes_read: 18,
      start_date: '2010-01-15',
      end_date: null,
      times_reread: 3,
      reread_desire: 2,
      is_rereading: true,
      priority: 0,
      notes: 'Tags: dark',
    });
    expect(entries[1]).toMatchObject({ status: 'bookmark', is_rereading: false });
  });

  it('update_on_import 0 leaves existing entries alone; fields outside the format keep their values', async () => {
    const { token } = await createUserWithToken(app);
    await put(token, 'anime', 1, {
      status: 'ongoing',
      episodes_watched: 3,
      public_rating: 7,
      public_fraction: 5,
      personal_rating: 88,
      is_visible: false,
    });
    await put(token, 'anime', 3, { status: 'ongoing', public_rating: 6, public_fraction: 4 });
    const [before] = await list(token, 'anime');
    await sleep(1100); // updated_at has whole seconds
    const result = await importInto(
      token,
      'anime',
      animeFile(
        animeElement({ series_animedb_id: 5114, my_status: 'Completed', update_on_import: 0 }),
        animeElement({
          series_animedb_id: 1535,
          my_status: 'Completed',
          my_score: 6,
          my_watched_episodes: 37,
          update_on_import: 1,
        }),
      ),
    ).expect(200);
    expect(result.body).toEqual({ created: 0, updated: 1, unchanged: 1, skipped: [] });
    const [first, third] = await list(token, 'anime');
    expect(first).toEqual(before);
    expect(third).toMatchObject({
      status: 'completed',
      public_rating: 6,
      public_fraction: 4, // the rating did not change: the fraction stays
      episodes_watched: 37,
    });
    expect(third.updated_at > before.updated_at).toBe(true);

    const changedScore = await importInto(
      token,
      'anime',
      animeFile(animeElement({ series_animedb_id: 5114, my_score: 8, update_on_import: 1 })),
    ).expect(200);
    expect(changedScore.body).toMatchObject({ updated: 1 });
    const [after] = await list(token, 'anime');
    expect(after).toMatchObject({
      status: 'ongoing',
      public_rating: 8,
      public_fraction: 0,
      personal_rating: 88,
      is_visible: false,
      episodes_watched: 3,
    });
  });

  it('reports elements that are not in the catalog or invalid, and applies the others', async () => {
    const { token } = await createUserWithToken(app);
    const result = await importInto(
      token,
      'anime',
      animeFile(
        animeElement({ series_animedb_id: 5114, my_status: 'Watching', update_on_import: 1 }),
        animeElement({ series_animedb_id: 777777, my_status: 'Watching', update_on_import: 1 }),
        animeElement({ series_animedb_id: 9253, my_status: 'Paused', update_on_import: 1 }),
        animeElement({ series_animedb_id: 5114, my_status: 'Dropped', update_on_import: 1 }),
        animeElement({
          series_animedb_id: 1535,
          my_watched_episodes: 38,
          my_status: 2,
          update_on_import: 1,
        }),
        animeElement({ series_animedb_id: 30, my_score: 3, update_on_import: 1 }),
        animeElement({ series_animedb_id: 'abc', my_status: 'Watching' }),
        animeElement({ series_animedb_id: 9253, my_status: 5, update_on_import: 1 }),
      ),
    ).expect(200);
    expect(result.body.created).toBe(1);
    expect(result.body.updated).toBe(0);
    expect(result.body.unchanged).toBe(0);
    const skipped = result.body.skipped as {
      external_id: number | null;
      reason: string;
      detail: string;
    }[];
    expect(skipped).toHaveLength(7);
    expect(skipped).toEqual(
      expect.arrayContaining([
        {
          external_id: 777777,
          reason: 'not_in_catalog',
          detail: 'No anime title has external_id 777777',
        },
        {
          external_id: 9253,
          reason: 'invalid',
          detail: expect.stringContaining('my_status "Paused"'),
        },
        { external_id: 5114, reason: 'invalid', detail: expect.stringContaining('a second time') },
        {
          external_id: 1535,
          reason: 'invalid',
          detail: expect.stringContaining('episodes_watched must be at most 37'),
        },
        {
          external_id: 30,
          reason: 'invalid',
          detail: expect.stringContaining('my_status is missing'),
        },
        { external_id: null, reason: 'invalid', detail: expect.stringContaining('"abc"') },
        { external_id: 9253, reason: 'invalid', detail: expect.stringContaining('a second time') },
      ]),
    );
    const entries = await list(token, 'anime');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: 1, status: 'ongoing' });
  });

  describe('refuses files and requests, changing nothing', () => {
    const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<myanimelist>${MYINFO_ANIME}<anime><series_animedb_id>5114</series_animedb_id><my_status>Watching</my_status><my_comments>&lol9;</my_comments></anime></myanimelist>`;
    const xxe = `<?xml version="1.0"?>

<!DOCTYPE myanimelist [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<myanimelist>${MYINFO_ANIME}<anime><series_animedb_id>5114</series_animedb_id><my_status>Watching</my_status><my_comments>&xxe;</my_comments></anime></myanimelist>`;
    const valid = animeFile(animeElement({ series_animedb_id: 5114, my_status: 'Watching' }));

    it.each([
      [
        'billion laughs',
        billionLaughs,
        400,
        'line 2: a document type declaration (DTD) is not allowed',
      ],
      ['XXE', xxe, 400, 'line 3: a document type declaration (DTD) is not allowed'],
      [
        'an undeclared entity',
        valid.replace('Watching', 'Watching&xxe;'),
        400,
        'line 4: undefined entity',
      ],
      ['XML that is not well formed', valid.replace('</anime>', '</anim>'), 400, 'line 4'],
      ['truncated XML', valid.slice(0, -20), 400, 'line'],
      [
        'a manga list',
        valid.replace(MYINFO_ANIME, MYINFO_MANGA),
        400,
        'line 3: the file is a manga list (user_export_type 2); this endpoint imports anime',
      ],
      ['a file without myinfo', valid.replace(MYINFO_ANIME, ''), 400, 'before <myinfo>'],
      [
        'manga elements in an anime list',
        valid.replace(/<(\/?)anime>/g, '<$1manga>'),
        400,
        '<manga> in an anime list',
      ],
      ['another root element', valid.replace(/myanimelist>/g, 'list>'), 400, 'root element'],
      ['an empty body', '', 400, ''],
    ])('%s', async (_name, body, status, detail) => {
      const { token } = await createUserWithToken(app);
      const response = await importInto(token, 'anime', body).expect(status);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body.detail).toContain(detail);
      expect(await list(token, 'anime')).toEqual([]);
    });

    it('an anime list sent to the manga endpoint: 400 naming it "an anime list"', async () => {
      const { token } = await createUserWithToken(app);
      const response = await importInto(token, 'manga', valid).expect(400);
      expect(response.body.detail).toBe(
        'Not a readable MyAnimeList export: line 3: the file is an anime list (user_export_type 1); this endpoint imports manga',
      );
    });

    it('wrong Content-Type: 415; JSON that is not JSON: 400', async () => {
      const { token } = await createUserWithToken(app);
      await importInto(token, 'anime', valid, { 'Content-Type': 'text/plain' }).expect(415);
      await importInto(token, 'anime', '{"a": 1}', { 'Content-Type': 'application/json' }).expect(
        415,
      );
      await importInto(token, 'anime', valid, { 'Content-Type': 'application/json' }).expect(400);
      await importInto(token, 'anime', valid, {}).expect(415);
      expect(await list(token, 'anime')).toEqual([]);
    });

    it('gzip: accepted; another encoding 415; broken gzip 400; a gzip bomb 413', async () => {
      const { token } = await createUserWithToken(app);
      const xml = (
        await importInto(token, 'anime', gzipSync(valid), {
          'Content-Type': 'application/xml',
          'Content-Encoding': 'gzip',
        }).expect(200)
      ).body;
      expect(xml).toMatchObject({ created: 1 });

      const other = await createUserWithToken(app);
      await importInto(other.token, 'anime', valid, {
        'Content-Type': 'application/xml',
        'Content-Encoding': 'br',
      }).expect(415);
      await importInto(other.token, 'anime', Buffer.from('not gzip at all'), {
        'Content-Type': 'application/xml',
        'Content-Encoding': 'gzip',
      }).expect(400);
      // 16 MiB of the same character inflates from about 16 KiB.
      const bomb = gzipSync(
        Buffer.concat([Buffer.from(valid.slice(0, -15)), Buffer.alloc(16 * 1024 * 1024, 0x20)]),
      );
      expect(bomb.length).toBeLessThan(200 * 1024);
      const refused = await importInto(other.token, 'anime', bomb, {
        'Content-Type': 'application/xml',
        'Content-Encoding': 'gzip',
      }).expect(413);
      expect(refused.body.detail).toContain('8 MiB');
      expect(await list(other.token, 'anime')).toEqual([]);
    });

    it('a file over 8 MiB: 413', async () => {
      const { token } = await createUserWithToken(app);
      const big = valid.replace(
        '<myanimelist>',
        `<myanimelist><!--${' '.repeat(8 * 1024 * 1024)}-->`,
      );
      await importInto(token, 'anime', big).expect(413);
      expect(await list(token, 'anime')).toEqual([]);
    });
  });

  it('imported writes move the statistics and appear in the changes feed', async () => {
    const { token } = await createUserWithToken(app);
    const first = await api(app, token).get('/v1/my/anime/changes').expect(200);
    await importInto(
      token,
      'anime',
      animeFile(
        animeElement({
          series_animedb_id: 5114,
          my_status: 'Completed',
          my_score: 8,
          my_watched_episodes: 64,
        }),
        animeElement({ series_animedb_id: 9253, my_status: 'Watching', my_watched_episodes: 10 }),
      ),
    ).expect(200);
    const changes = await api(app, token)
      .get(`/v1/my/anime/changes?since=${encodeURIComponent(first.body.cursor as string)}`)
      .expect(200);
    expect((changes.body.changes as Entry[]).map((e) => e.id)).toEqual([1, 2]);
    const profile = await api(app, token).get('/v1/my/profile').expect(200);
    expect(profile.body.statistics.anime).toMatchObject({
      watching: 1,
      completed: 1,
      episodes: 74,
      average: 80,
    });
  });

  it('goes through the pipeline: no token 401, scope 403, unknown media type 404, own rate-limit rows', async () => {
    const { token } = await createUserWithToken(app, [SCOPES.manga]);
    await request(app.getHttpServer())
      .post('/v1/my/anime/import')
      .set('User-Agent', USER_AGENT)
      .set('Content-Type', 'application/xml')
      .send('<myanimelist/>')
      .expect(401);
    await importInto(token, 'anime', '<myanimelist/>').expect(403);
    await exportOf(token, 'anime').expect(403);
    await importInto(token, 'books', '<myanimelist/>').expect(404);
    await exportOf(token, 'books').expect(404);
    const exported = await exportOf(token, 'manga').expect(200);
    expect(exported.headers['ratelimit-limit']).toBeDefined();
    const imported = await importInto(token, 'manga', exported.text).expect(200);
    expect(imported.headers['ratelimit-limit']).toBeDefined();
  });
});

describe('MyAnimeList import rate limits', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp({ RATE_LIMIT_USER_LIMIT: '2' });
    await resetDatabase(app);
  });

  afterAll(async () => {
    await app.close();
  });

  it('export and import each have their own budget', async () => {
    const { token } = await createUserWithToken(app);
    const exportList = () => api(app, token).get('/v1/my/anime/export');
    await exportList().expect(200);
    await api(app, token).get('/v1/my/manga/export').expect(200);
    await exportList().expect(429);
    await request(app.getHttpServer())
      .post('/v1/my/anime/import')
      .set('User-Agent', USER_AGENT)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/xml')
      .send(`<myanimelist>${MYINFO_ANIME}</myanimelist>`)
      .expect(200);
    const exported = await api(app, token).get('/v1/my/anime/ratings').expect(200);
    expect(exported.body).toEqual([]);
  });
});

describe('MyAnimeList import and webhooks', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  });

  afterAll(async () => {
    await app.close();
  });

  it('each created or updated element is one event; unchanged ones send nothing', async () => {
    await resetDatabase(app);
    await importTitles(app, [anime(1), anime(2)]);
    await app.get(WebhooksService).create('http://127.0.0.1:9/hook');
    const { token } = await createUserWithToken(app);
    const send = (xml: string) =>
      request(app.getHttpServer())
        .post('/v1/my/anime/import')
        .set('User-Agent', USER_AGENT)
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/xml')
        .send(xml)
        .expect(200);
    const events = async () =>
      (
        await app
          .get(DataSource)
          .query<{ event_type: string }[]>('SELECT event_type FROM webhook_messages ORDER BY id')
      ).map((row) => row.event_type);

    const file = animeFile(
      animeElement({ series_animedb_id: 5001, my_status: 'Watching', update_on_import: 1 }),
      animeElement({ series_animedb_id: 5002, my_status: 'Completed', update_on_import: 1 }),
    );
    await send(file);
    expect(await events()).toEqual(['rating.created', 'rating.created']);
    await send(file);
    expect(await events()).toHaveLength(2);
    await send(file.replace('Watching', 'Dropped'));
    expect(await events()).toEqual(['rating.created', 'rating.created', 'rating.updated']);
  });
});
