import type { MediaType } from '../common/media-type';

/** One title as the import file and the database hold it (decisions §1). */
export interface TitleRecord {
  mediaType: MediaType;
  id: number;
  externalId: number | null;
  title: string;
  episodes: number | null;
  episodeMinutes: number | null;
  chapters: number | null;
  volumes: number | null;
}

export class CatalogFileError extends Error {}

const MAX_ID = 2 ** 31 - 1;
const MAX_TITLE_LENGTH = 500;
/** The counts of the other media type: present and not null, they contradict the record's type. */
const OTHER_MEDIA_COUNTS: Record<MediaType, readonly string[]> = {
  anime: ['chapters', 'volumes'],
  manga: ['episodes', 'episode_minutes'],
};

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

  const seen: Record<MediaType, { ids: Set<number>; externalIds: Set<number> }> = {
    anime: { ids: new Set(), externalIds: new Set() },
    manga: { ids: new Set(), externalIds: new Set() },
  };
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
    return record;
  });
}

function parseRecord(raw: unknown, where: string): TitleRecord {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CatalogFileError(`${where}: must be a JSON object`);
  }
  const record = raw as Record<string, unknown>;
  const mediaType = record.media_type;
  if (mediaType !== 'anime' && mediaType !== 'manga') {
    throw new CatalogFileError(`${where}: media_type must be "anime" or "manga"`);
  }
  const fail = (message: string): never => {
    const id = typeof record.id === 'number' ? ` id ${record.id}` : '';
    throw new CatalogFileError(`${where} (${mediaType}${id}): ${message}`);
  };
  // Other keys (a year, a synopsis…) are ignored: exports from list services carry many.
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
  return {
    mediaType,
    id: id as number,
    externalId: externalId as number | null,
    title: title as string,
    episodes: mediaType === 'anime' ? count('episodes') : null,
    episodeMinutes: mediaType === 'anime' ? count('episode_minutes') : null,
    chapters: mediaType === 'manga' ? count('chapters') : null,
    volumes: mediaType === 'manga' ? count('volumes') : null,
  };
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
