import type { MediaType } from '../common/media-type';
import { FieldError, ProblemException } from '../common/problem';
import type { PutRatingDto } from './dto/put-rating.dto';
import { changesFrom, ENTRY_DEFAULTS, EntryFields } from './rating-fields';
import { entryFieldsOf, TitleKey, TitleWithEntryRow } from './ratings.repository';

/** The title of a read, or 404 when the catalog has none. */
export function foundTitle(
  row: TitleWithEntryRow | undefined,
  mediaType: MediaType,
  key: TitleKey,
): TitleWithEntryRow {
  if (!row) {
    throw ProblemException.notFound(
      key.byExternalId
        ? `No ${mediaType} title has external_id ${key.id}`
        : `No ${mediaType} title has id ${key.id}`,
    );
  }
  return row;
}

/**
 * The entry a PUT stores (decisions §6): the stored entry with the body's fields on top, or the
 * defaults with them on create; checked against the cross-field rules and the title's counts.
 */
export function entryAfterPut(
  mediaType: MediaType,
  row: TitleWithEntryRow,
  body: PutRatingDto,
): EntryFields {
  const changes = changesFrom(mediaType, body);
  const entry =
    row.entry_id !== null
      ? { ...entryFieldsOf(row), ...changes }
      : { ...ENTRY_DEFAULTS, ...changes, status: body.status };
  checkEntryRules(mediaType, entry, row);
  return entry;
}

/**
 * The bound of a count when the title's own count is unknown (decisions §6); when it is known,
 * the title's count is the bound, however large.
 */
const UNKNOWN_COUNT_CAPS: Record<string, number> = {
  episodes_watched: 100000,
  chapters_read: 100000,
  volumes_read: 10000,
};

/** The rules that need the whole entry and the title (decisions §6). */
function checkEntryRules(
  mediaType: MediaType,
  entry: EntryFields,
  title: Pick<TitleWithEntryRow, 'episodes' | 'chapters' | 'volumes'>,
): void {
  const errors: FieldError[] = [];
  if (entry.publicRating * 10 + entry.publicFraction > 100) {
    errors.push({
      field: 'public_fraction',
      message:
        'makes the score above 10.0 (public_rating + public_fraction/10 must be at most 10.0)',
    });
  }
  if (entry.startDate !== null && entry.endDate !== null && entry.endDate < entry.startDate) {
    errors.push({
      field: 'end_date',
      message: `must not be before start_date (${entry.startDate})`,
    });
  }
  const within = (field: string, value: number, known: number | null, what: string) => {
    const max = known ?? UNKNOWN_COUNT_CAPS[field];
    if (value > max) {
      errors.push({
        field,
        message:
          known === null
            ? `must be at most ${max} (the title's ${what} is unknown)`
            : `must be at most ${known}, the title's ${what}`,
      });
    }
  };
  if (mediaType === 'anime') {
    within('episodes_watched', entry.episodesWatched, title.episodes, 'episode count');
  } else {
    within('chapters_read', entry.chaptersRead, title.chapters, 'chapter count');
    within('volumes_read', entry.volumesRead, title.volumes, 'volume count');
  }
  if (errors.length > 0) throw ProblemException.validation(errors);
}
