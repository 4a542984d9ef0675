import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { chainUnchecked as chain } from 'stream-chain';
import { parser } from 'stream-json';
import { pick } from 'stream-json/filters/pick.js';
import { streamArray } from 'stream-json/streamers/stream-array.js';
import { startsWithGzipMagic } from '../common/cli/gzip-magic';
import { CatalogFileError } from './catalog-file';
import { factsOfOfflineItem, type TitleFacts } from './title-facts';
import type { CrossRefKind, CrossRefs } from './title-names';

/** An anime title as the manami-project anime-offline-database describes it (contract §14). */
export interface OfflineTitle {
  externalId: number;
  title: string;
  episodes: number | null;
  episodeMinutes: number | null;
  facts: TitleFacts;
  /** From `sources` (the first of each kind) and `synonyms` (contract §21). */
  crossRefs: { ids: CrossRefs; synonyms: string[] };
}

const CROSS_REF_SOURCES: [CrossRefKind, RegExp][] = [
  ['anilist', /^https?:\/\/anilist\.co\/anime\/(\d{1,10})\/?$/],
  ['anidb', /^https?:\/\/anidb\.net\/anime\/(\d{1,10})\/?$/],
  ['kitsu', /^https?:\/\/kitsu\.(?:app|io)\/anime\/(\d{1,10})\/?$/],
];

const MAL_SOURCE = /^https?:\/\/myanimelist\.net\/anime\/(\d{1,10})\/?$/;
const MAX_ID = 2 ** 31 - 1;
const MAX_TITLE_LENGTH = 500;

/**
 * The file's items, one at a time, in file order: the file is streamed (stream-json) and never
 * held whole, so a 40,000-item file takes the memory of one item. A file that is not JSON (or
 * gzip of JSON) with a `data` array throws CatalogFileError when the stream reaches the problem.
 */
export async function* offlineDatabaseItems(file: string): AsyncGenerator<unknown> {
  const gzipped = await startsWithGzipMagic(file, (message) => new CatalogFileError(message));
  const steps: unknown[] = [createReadStream(file)];
  if (gzipped) steps.push(createGunzip());
  let sawData = false;
  steps.push(
    // Whole values only: the chunks of each string as tokens of their own as well would double
    // the garbage of a large file (measured: 280 against 192 MB of peak RSS for 40,000 items).
    parser({ streamValues: false }),
    pick({ filter: 'data' }),
    (token: { name: string }) => {
      if (!sawData && token.name !== 'startArray') {
        throw new CatalogFileError('"data" is not an array');
      }
      sawData = true;
      return token;
    },
  );
  steps.push(streamArray());
  const pipeline = chain(steps) as unknown as Readable;
  try {
    for await (const item of pipeline as AsyncIterable<{ value: unknown }>) yield item.value;
  } catch (error) {
    if (error instanceof CatalogFileError) throw error;
    throw new CatalogFileError(
      `not ${gzipped ? 'gzip of JSON' : 'JSON'}: ${(error as Error).message}`,
    );
  } finally {
    pipeline.destroy();
  }
  if (!sawData) throw new CatalogFileError('no "data" array at the top level');
}

/**
 * The title an item describes, or the reason it is skipped: no MyAnimeList source (the first one
 * counts) or no usable `title`.
 */
export function offlineTitleOf(item: unknown): OfflineTitle | null {
  if (typeof item !== 'object' || item === null) return null;
  const { sources, title, status, episodes, duration, synonyms } = item as Record<string, unknown>;
  if (typeof title !== 'string' || title.trim() === '' || title.length > MAX_TITLE_LENGTH) {
    return null;
  }
  let externalId: number | null = null;
  if (Array.isArray(sources)) {
    for (const source of sources) {
      const match = typeof source === 'string' ? MAL_SOURCE.exec(source) : null;
      if (match) {
        externalId = Number(match[1]);
        break;
      }
    }
  }
  if (externalId === null || externalId < 1 || externalId > MAX_ID) return null;
  // An airing title's count trails its newest episode: only a finished one's is the title's.
  const count =
    status === 'FINISHED' && Number.isInteger(episodes) && (episodes as number) > 0
      ? Math.min(episodes as number, MAX_ID)
      : null;
  const { value, unit } = (duration ?? {}) as { value?: unknown; unit?: unknown };
  const minutes =
    unit === 'SECONDS' && typeof value === 'number' && Number.isFinite(value) && value > 0
      ? Math.min(Math.floor(value / 60 + 0.5), MAX_ID)
      : null;
  const ids: CrossRefs = {};
  for (const source of Array.isArray(sources) ? sources : []) {
    for (const [kind, pattern] of CROSS_REF_SOURCES) {
      const match = typeof source === 'string' ? pattern.exec(source) : null;
      const id = match ? Number(match[1]) : 0;
      if (ids[kind] === undefined && id >= 1 && id <= MAX_ID) ids[kind] = id;
    }
  }
  const names = (Array.isArray(synonyms) ? synonyms : []).filter(
    (name): name is string =>
      typeof name === 'string' && name.trim() !== '' && name.length <= MAX_TITLE_LENGTH,
  );
  return {
    externalId,
    title,
    episodes: count,
    episodeMinutes: minutes,
    facts: factsOfOfflineItem(item as Record<string, unknown>),
    crossRefs: { ids, synonyms: names },
  };
}
