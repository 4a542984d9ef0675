import { isMediaType, mediaTypeChoices, type MediaType } from '../media-types/media-type';
import { byMediaType, DESCRIPTOR_LIST, descriptorOf, type TitleCount } from '../media-types';
import { factsOfRecord, type TitleFacts } from './title-facts';
import { CROSS_REF_KINDS, type CrossRefs } from './title-names';

/** One title as the import file and the database hold it (contract §1). */
export interface TitleRecord {
  mediaType: MediaType;
  id: number;
  externalId: number | null;
  title: string;
  episodes: number | null;
  episodeMinutes: number | null;
  chapters: number | null;
  volumes: number | null;
  /** Year, season, format and tags (contract §22); absent: none known (NO_FACTS). */
  facts?: TitleFacts;
  /** `ids` and `synonyms` (contract §21); absent when the record gives neither. */
  crossRefs?: { ids: CrossRefs; synonyms: string[] };
}

export class CatalogFileError extends Error {}

const MAX_ID = 2 ** 31 - 1;
const MAX_TITLE_LENGTH = 500;
/** The file's field of each count a title may have. */
const COUNT_FIELDS: Record<TitleCount, string> = {
  episodes: 'episodes',
  episodeMinutes: 'episode_minutes',
  chapters: 'chapters',
  volumes: 'volumes',
};

/** The counts of other media types: present and not null, they contradict the record's type. */
const OTHER_MEDIA_COUNTS = byMediaType((descriptor) => {
  const others = DESCRIPTOR_LIST.flatMap(({ catalogCounts }) => catalogCounts);
  return [...new Set(others)]
    .filter((count) => !descriptor.catalogCounts.includes(count))
    .map((count) => COUNT_FIELDS[count]);
});

/**
 * Parses and checks a whole catalog file before anything is written, so a bad file changes
 * nothing; the error names the first bad record (1-based) and what is wrong with it.
 */
export function parseCatalogFile(text: string): TitleRecord[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CatalogFileError(`not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(data)) throw new CatalogFileError('the file must hold a JSON array of titles');

  const seen = byMediaType(() => ({ ids: new Set<number>(), externalIds: new Set<number>() }));
  const refHolders = new Map<string, number>();
  return data.map((raw: unknown, index) => {
    const record = parseRecord(raw, `record ${index + 1}`);
    const where = `record ${index + 1} (${record.mediaType} id ${record.id})`;
    const known = seen[record.mediaType];
    if (known.ids.has(record.id)) throw new CatalogFileError(`${where}: duplicate id ${record.id}`);
    if (record.externalId !== null && known.externalIds.has(record.externalId)) {
      throw new CatalogFileError(`${where}: duplicate external_id ${record.externalId}`);
    }
    known.ids.add(record.id);
    if (record.externalId !== null) known.externalIds.add(record.externalId);
    for (const [kind, refId] of Object.entries(record.crossRefs?.ids ?? {})) {
      const holder = refHolders.get(`${record.mediaType}:${kind}:${refId}`);
      if (holder !== undefined) {
        throw new CatalogFileError(
          `${where}: ids.${kind} ${refId} is also given to ${record.mediaType} id ${holder}`,
        );
      }
      refHolders.set(`${record.mediaType}:${kind}:${refId}`, record.id);
    }
    return record;
  });
}

function parseRecord(raw: unknown, where: string): TitleRecord {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CatalogFileError(`${where}: must be a JSON object`);
  }
  const record = raw as Record<string, unknown>;
  const mediaType = record.media_type;
  if (typeof mediaType !== 'string' || !isMediaType(mediaType)) {
    throw new CatalogFileError(`${where}: media_type must be ${mediaTypeChoices('"')}`);
  }
  const fail = (message: string): never => {
    const id = typeof record.id === 'number' ? ` id ${record.id}` : '';
    throw new CatalogFileError(`${where} (${mediaType}${id}): ${message}`);
  };
  // Other keys (a synopsis, a score…) are ignored: exports from list services carry many.
  const contradicting = OTHER_MEDIA_COUNTS[mediaType].filter(
    (key) => (record[key] ?? null) !== null,
  );
  if (contradicting.length > 0) {
    fail(
      `${contradicting.join(', ')} ${contradicting.length > 1 ? 'are not fields' : 'is not a field'} of ${mediaType} titles`,
    );
  }

  const id = record.id;
  if (!isIntegerIn(id, 1, MAX_ID)) fail(`id must be a positive integer below 2^31`);
  const externalId = record.external_id ?? null;
  if (externalId !== null && !isIntegerIn(externalId, 1, MAX_ID)) {
    fail('external_id must be a positive integer below 2^31 or null');
  }
  const title = record.title;
  if (typeof title !== 'string' || title.trim() === '' || title.length > MAX_TITLE_LENGTH) {
    fail(`title must be a non-empty string of at most ${MAX_TITLE_LENGTH} characters`);
  }
  const count = (field: string): number | null => {
    const value = record[field] ?? null;
    if (value !== null && !isIntegerIn(value, 0, 1_000_000)) {
      fail(`${field} must be a non-negative integer or null (unknown)`);
    }
    return value as number | null;
  };
  const parsed: TitleRecord = {
    mediaType,
    id: id as number,
    externalId: externalId as number | null,
    title: title as string,
    episodes: null,
    episodeMinutes: null,
    chapters: null,
    volumes: null,
    facts: factsOfRecord(mediaType, record, fail),
  };
  for (const property of descriptorOf(mediaType).catalogCounts) {
    parsed[property] = count(COUNT_FIELDS[property]);
  }
  const crossRefs = crossRefsOf(record, fail);
  if (crossRefs) parsed.crossRefs = crossRefs;
  return parsed;
}

/** The record's `ids` ({anilist, anidb, kitsu}: positive integers) and `synonyms` (contract §21). */
function crossRefsOf(
  record: Record<string, unknown>,
  fail: (message: string) => never,
): TitleRecord['crossRefs'] {
  const rawIds = record.ids ?? null;
  const rawSynonyms = record.synonyms ?? null;
  if (rawIds === null && rawSynonyms === null) return undefined;
  const ids: CrossRefs = {};
  if (rawIds !== null) {
    if (typeof rawIds !== 'object' || Array.isArray(rawIds)) {
      fail('ids must be an object of anilist, anidb and kitsu ids');
    }
    for (const kind of CROSS_REF_KINDS) {
      const value = (rawIds as Record<string, unknown>)[kind] ?? null;
      if (value === null) continue;
      if (!isIntegerIn(value, 1, MAX_ID)) fail(`ids.${kind} must be a positive integer below 2^31`);
      ids[kind] = value;
    }
  }
  const synonyms: string[] = [];
  if (rawSynonyms !== null) {
    if (!Array.isArray(rawSynonyms)) fail('synonyms must be an array of strings');
    for (const synonym of rawSynonyms as unknown[]) {
      if (
        typeof synonym !== 'string' ||
        synonym.trim() === '' ||
        synonym.length > MAX_TITLE_LENGTH
      ) {
        fail(`synonyms must hold non-empty strings of at most ${MAX_TITLE_LENGTH} characters`);
      }
      synonyms.push(synonym);
    }
  }
  return { ids, synonyms };
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
