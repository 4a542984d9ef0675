// Seeding through the real code paths: the admin CLI for the catalog, users and tokens, and the
// HTTP API for the users' lists.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runNode } from './children.mjs';
import { apiHeaders, HttpClient } from './http.mjs';

export const ANIME_TITLES = 12_000;
export const MANGA_TITLES = 2_000;
export const SCOPES = 'ratings.anime ratings.manga user.profile';

/** The list sizes of the GET-all and profile scenarios, and the user that owns each list. */
export const LIST_USERS = [
  { key: '10', name: 'bench_list_10', size: 10 },
  { key: '1k', name: 'bench_list_1k', size: 1_000 },
  { key: '10k', name: 'bench_list_10k', size: 10_000 },
];
/** Its odd title ids are private: the public-list scenarios read the other half. */
export const HALF_PRIVATE_KEY = '10k';
/** Owns the PUT scenarios, so that they never change the lists above. */
export const WRITER = { key: 'writer', name: 'bench_writer', size: 1 };

const STATUSES = ['completed', 'ongoing', 'on_hold', 'dropped', 'bookmark', 'not_interested'];

/** The body of every PUT of the bench, as in the brief. */
export const PUT_BODY = JSON.stringify({
  status: 'completed',
  public_rating: 8,
  episodes_watched: 3,
});

const SEASONS = ['winter', 'spring', 'summer', 'fall'];
const FORMATS = ['tv', 'movie', 'ova', 'ona', 'special', 'music'];
/** The tags the anime titles draw theirs from. */
const TAG_VOCABULARY = 400;

/**
 * The facts of an anime title (contract §22), for the statistics scenario: every title has a year,
 * a season, a format and 5 to 20 distinct tags.
 * @param {number} id
 */
function animeFacts(id) {
  const count = 5 + (id % 16);
  const tags = [];
  for (let k = 0; k < count; k++) tags.push(`tag ${(id * 7 + k * 23) % TAG_VOCABULARY}`);
  return {
    year: 1990 + (id % 36),
    season: SEASONS[id % 4],
    format: FORMATS[id % 6],
    tags,
  };
}

/**
 * A catalog import file: ANIME_TITLES anime (every 10th with unknown counts; all with the facts of
 * animeFacts) and MANGA_TITLES manga.
 * @param {string} dir
 * @returns {Promise<string>} the file path
 */
export async function writeCatalogFile(dir) {
  const titles = [];
  for (let id = 1; id <= ANIME_TITLES; id++) {
    const unknown = id % 10 === 0;
    titles.push({
      media_type: 'anime',
      id,
      external_id: 100_000 + id,
      title: `Bench Anime ${id}: ${'a long subtitle '.repeat(1 + (id % 3))}`.trim(),
      episodes: unknown ? null : 12 + (id % 53),
      episode_minutes: unknown ? null : 20 + (id % 9),
      ...animeFacts(id),
    });
  }
  for (let id = 1; id <= MANGA_TITLES; id++) {
    titles.push({
      media_type: 'manga',
      id,
      external_id: 200_000 + id,
      title: `Bench Manga ${id}`,
      chapters: id % 10 === 0 ? null : 20 + (id % 200),
      volumes: id % 10 === 0 ? null : 2 + (id % 20),
    });
  }
  const path = join(dir, 'catalog.json');
  await writeFile(path, JSON.stringify(titles));
  return path;
}

/**
 * Imports the catalog, creates the users and issues a token for each, all through dist/cli.js.
 * @param {{ cwd: string, env: NodeJS.ProcessEnv, catalogFile: string }} options
 * @returns {Promise<{ imported: unknown, tokens: Record<string, string> }>}
 */
export async function seedWithCli({ cwd, env, catalogFile }) {
  const cli = (/** @type {string[]} */ ...args) =>
    runNode(['dist/cli.js', ...args], { cwd, env, timeoutMs: 300_000 });

  const imported = /** @type {unknown} */ (
    JSON.parse((await cli('catalog', 'import', catalogFile)).trim())
  );
  /** @type {Record<string, string>} */
  const tokens = {};
  for (const user of [...LIST_USERS, WRITER]) {
    await cli('users', 'create', '--name', user.name);
    const token = (
      await cli('tokens', 'issue', '--user', user.name, '--scopes', SCOPES, '--ttl', '86400')
    ).trim();
    if (!/^\S{20,}$/.test(token))
      throw new Error(`tokens issue printed no token for ${user.name}: "${token}"`);
    tokens[user.key] = token;
  }
  return { imported, tokens };
}

/**
 * Fills each list user's anime list (and the writer's) with titles 1..size through PUT,
 * `concurrency` requests in flight. Statuses and ratings vary so that the profile aggregates have something to add up.
 * @param {{ baseUrl: string, tokens: Record<string, string>, concurrency?: number, deadlineMs?: number }} options
 */
export async function fillLists({ baseUrl, tokens, concurrency = 20, deadlineMs = 15 * 60_000 }) {
  /** @type {{ token: string, id: number, isPrivate: boolean }[]} */
  const jobs = [];
  for (const user of [...LIST_USERS, WRITER]) {
    for (let id = 1; id <= user.size; id++) {
      jobs.push({
        token: tokens[user.key],
        id,
        isPrivate: user.key === HALF_PRIVATE_KEY && id % 2 === 1,
      });
    }
  }
  const client = new HttpClient(baseUrl, concurrency);
  const deadline = Date.now() + deadlineMs;
  let next = 0;
  let failed = false;
  const putAll = async () => {
    while (next < jobs.length && !failed) {
      if (Date.now() > deadline)
        throw new Error(`seeding did not finish within ${deadlineMs / 1000} s`);
      const { token, id, isPrivate } = jobs[next++];
      const body = JSON.stringify({
        status: STATUSES[id % STATUSES.length],
        public_rating: id % 11,
        episodes_watched: 3,
        ...(isPrivate ? { is_visible: false } : {}),
      });
      const response = await client.request('PUT', `/v1/my/anime/${id}/ratings`, {
        headers: apiHeaders(token, true),
        body,
      });
      if (response.status !== 200) {
        throw new Error(
          `seeding PUT anime ${id} answered ${response.status}: ${response.body.slice(0, 300)}`,
        );
      }
    }
  };
  // The first failure stops every worker, so a broken server is not flooded with the rest.
  const worker = () =>
    putAll().catch((/** @type {unknown} */ error) => {
      failed = true;
      throw error;
    });
  const started = Date.now();
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    client.close();
  }
  return { requests: jobs.length, seconds: (Date.now() - started) / 1000 };
}
