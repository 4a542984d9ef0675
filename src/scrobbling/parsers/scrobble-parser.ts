import { ProblemException, PROBLEMS } from '../../common/problem';

export const SCROBBLER_KINDS = ['jellyfin', 'plex', 'emby', 'kodi', 'generic'] as const;
export type ScrobblerKind = (typeof SCROBBLER_KINDS)[number];

/** The series-level ids a payload names: `mal` is the external id, the others cross-references. */
export type PayloadIds = Partial<Record<'mal' | 'anilist' | 'anidb' | 'kitsu', number>>;
/** The order in which the ids decide (contract §21 rule 1). */
export const ID_ORDER = ['mal', 'anilist', 'anidb', 'kitsu'] as const;

/** What a payload says, once read: the same for every kind. */
export interface ParsedScrobble {
  /** The payload reports something watched (or read); else `not_watched`. */
  watched: boolean;
  mediaType: 'anime' | 'manga';
  /** The server's user name, when the kind names one. */
  user: string | null;
  /** Plex's `"user": false`: an event of another account on the owner's server. */
  otherAccount: boolean;
  /** The series (a movie's own title). */
  series: string | null;
  season: number | null;
  /** The episode (manga: chapter); a movie's is 1. */
  episode: number | null;
  volume: number | null;
  ids: PayloadIds;
}

/**
 * One kind of scrobbler: how its payload is read. A new kind is one file implementing this and
 * its entry in SCROBBLE_PARSERS (parsers/index.ts), plus fixtures.
 */
export interface ScrobbleParser {
  readonly kind: ScrobblerKind;
  /** The multipart part holding the JSON (Plex `payload`, Emby `data`); null: no multipart. */
  readonly multipartPart: string | null;
  /** Accepts application/x-www-form-urlencoded (the Jellyfin plugin's Generic Form). */
  readonly form: boolean;
  /** The payload's meaning; throws unreadable() when it is not a payload of the kind. */
  parse(body: Record<string, unknown>): ParsedScrobble;
}

/** 400 problem+json: the body is not a payload of the scrobbler's kind. */
export function unreadable(detail: string): ProblemException {
  return ProblemException.of(400, PROBLEMS.badRequest, detail);
}

export const NOT_WATCHED: ParsedScrobble = {
  watched: false,
  mediaType: 'anime',
  user: null,
  otherAccount: false,
  series: null,
  season: null,
  episode: null,
  volume: null,
  ids: {},
};

const MAX_NAME = 500;
/** Episode, season, chapter and volume numbers: far beyond any title, well within the columns. */
const MAX_NUMBER = 1_000_000_000;
// C0 and C1 controls, and the bidirectional overrides: never part of a name.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A member of `body` by name, compared case-insensitively. */
export function member(body: unknown, name: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(record, name)) return record[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(record)) if (key.toLowerCase() === lower) return record[key];
  return undefined;
}

/** An object member, or undefined; anything else present is unreadable. */
export function objectOf(value: unknown, what: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw unreadable(`${what} must be an object`);
  return value as Record<string, unknown>;
}

/** A boolean; "True"/"False" strings count (contract §21). */
export function booleanOf(value: unknown, what: string): boolean | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) {
    return value.trim().toLowerCase() === 'true';
  }
  throw unreadable(`${what} must be a boolean`);
}

/** An integer; numeric strings count (contract §21). */
export function integerOf(value: unknown, what: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*[-+]?\d{1,15}\s*$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isSafeInteger(number) || Math.abs(number) > MAX_NUMBER) {
    throw unreadable(`${what} must be an integer from -${MAX_NUMBER} to ${MAX_NUMBER}`);
  }
  return number;
}

/** A number (a percentage); numeric strings count. */
export function numberOf(value: unknown, what: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : NaN;
  if (!Number.isFinite(number)) throw unreadable(`${what} must be a number`);
  return number;
}

/**
 * A string member, or null; control characters are dropped, a name longer than 500 characters
 * (code points, as the unmatched list's varchar(500) counts them) is refused.
 */
export function textOf(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') value = String(value);
  if (typeof value !== 'string') throw unreadable(`${what} must be a string`);
  const text = value.replace(CONTROLS, ' ').trim();
  if ([...text].length > MAX_NAME)
    throw unreadable(`${what} must be at most ${MAX_NAME} characters`);
  return text === '' ? null : text;
}

/** An id: a positive integer (numeric strings count); anything else is no id. */
export function idOf(value: unknown): number | null {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d{1,10}\s*$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isInteger(number) && number >= 1 && number <= 2 ** 31 - 1 ? number : null;
}

/** The ids named in `source` under `keys` (case-insensitive), as PayloadIds. */
export function idsOf(
  source: Record<string, unknown> | undefined,
  keys: Partial<Record<keyof PayloadIds, string>>,
): PayloadIds {
  const ids: PayloadIds = {};
  if (!source) return ids;
  for (const [kind, key] of Object.entries(keys) as [keyof PayloadIds, string][]) {
    const id = idOf(member(source, key));
    if (id !== null) ids[kind] = id;
  }
  return ids;
}

/** The event member: a string the kind needs to read the payload at all. */
export function eventOf(body: Record<string, unknown>, name: string): string {
  const event = member(body, name);
  if (typeof event !== 'string') throw unreadable(`${name} must be a string`);
  return event;
}
