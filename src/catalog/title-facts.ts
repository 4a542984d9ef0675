import { descriptorOf } from '../media-types';
import type { MediaType } from '../media-types/media-type';

/** The seasons of a title's year, in the order of the year (contract §22). */
export const SEASONS = ['winter', 'spring', 'summer', 'fall'] as const;
export type Season = (typeof SEASONS)[number];

export const MIN_YEAR = 1900;
export const MAX_YEAR = 2100;
export const MAX_TAG_LENGTH = 64;
export const MAX_TAGS = 100;

/** What the catalog knows of a title beyond its counts (contract §22); unknown: null, `[]`. */
export interface TitleFacts {
  year: number | null;
  season: Season | null;
  format: string | null;
  tags: string[];
}

export const NO_FACTS: TitleFacts = { year: null, season: null, format: null, tags: [] };

/** Characters counted as code points, as the contract counts them. */
function codePoints(text: string): number {
  return [...text].length;
}

/** Lower-cased, duplicates after lower-casing dropped, the first occurrence's order kept. */
export function normalisedTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.toLowerCase()))];
}

function isSeason(value: unknown): value is Season {
  return (SEASONS as readonly unknown[]).includes(value);
}

function isYear(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= MIN_YEAR && value <= MAX_YEAR
  );
}

/**
 * The facts of a record of the catalog file (contract §22): each member optional, null accepted
 * (tags null = `[]`); any other value breaking the rules calls `fail` with what is wrong.
 */
export function factsOfRecord(
  mediaType: MediaType,
  record: Record<string, unknown>,
  fail: (message: string) => never,
): TitleFacts {
  const year = record.year ?? null;
  if (year !== null && !isYear(year)) {
    fail(`year must be an integer from ${MIN_YEAR} to ${MAX_YEAR} or null`);
  }
  const season = record.season ?? null;
  if (season !== null && !isSeason(season)) fail(`season must be ${SEASONS.join(', ')} or null`);
  const formats: readonly string[] = descriptorOf(mediaType).formats;
  const format = record.format ?? null;
  if (format !== null && !(typeof format === 'string' && formats.includes(format))) {
    fail(`format must be one of ${formats.join(', ')} (${mediaType}) or null`);
  }
  const raw = record.tags ?? [];
  if (!Array.isArray(raw) || raw.some((tag) => typeof tag !== 'string')) {
    fail('tags must be an array of strings or null');
  }
  const tags = normalisedTags(raw as string[]);
  const bad = tags.find((tag) => tag.length === 0 || codePoints(tag) > MAX_TAG_LENGTH);
  if (bad !== undefined) {
    fail(`tags must be 1 to ${MAX_TAG_LENGTH} characters each (${JSON.stringify(bad)})`);
  }
  if (tags.length > MAX_TAGS) {
    fail(`tags must hold at most ${MAX_TAGS} tags after lower-casing and dropping duplicates`);
  }
  return { year, season, format, tags };
}

/**
 * The facts of an anime-offline-database item (contract §22): what does not fit becomes null (or
 * is dropped, for a tag); they never make the item skipped.
 */
export function factsOfOfflineItem(item: Record<string, unknown>): TitleFacts {
  const { animeSeason, type, tags } = item;
  const seasonOf = (animeSeason ?? {}) as { year?: unknown; season?: unknown };
  const year = isYear(seasonOf.year) ? seasonOf.year : null;
  const seasonName = typeof seasonOf.season === 'string' ? seasonOf.season.toLowerCase() : null;
  const typeName = typeof type === 'string' ? type.toLowerCase() : null;
  const formats: readonly string[] = descriptorOf('anime').formats;
  const strings = Array.isArray(tags)
    ? tags.filter((tag): tag is string => typeof tag === 'string')
    : [];
  return {
    year,
    season: isSeason(seasonName) ? seasonName : null,
    format: typeName !== null && formats.includes(typeName) ? typeName : null,
    tags: normalisedTags(strings)
      .filter((tag) => tag.length > 0 && codePoints(tag) <= MAX_TAG_LENGTH)
      .slice(0, MAX_TAGS),
  };
}

export function sameFacts(a: TitleFacts, b: TitleFacts): boolean {
  return (
    a.year === b.year &&
    a.season === b.season &&
    a.format === b.format &&
    a.tags.length === b.tags.length &&
    a.tags.every((tag, i) => tag === b.tags[i])
  );
}
