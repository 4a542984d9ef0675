import type { MediaType } from '../media-types/media-type';
import { FieldError, ProblemException } from '../common/problem';
import type { PutRatingDto } from './dto/entry-classes';
import { ENTRY_COLUMNS, entryDefaults, type EntryColumn } from '../media-types/entry-columns';
import { entryFieldsOfType } from '../media-types/entry-mapping';
import { byMediaType, type CountRule, type MediaTypeDescriptor } from '../media-types';
import { changesFrom, EntryFields } from './rating-fields';
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
 * The entry a PUT stores (contract §6): the stored entry with the body's fields on top, or the
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

const ENTRY_DEFAULTS = entryDefaults();

/** A count rule of a media type (contract §6) with the entry property the count is stored in. */
export type CountCheck = CountRule & { property: keyof EntryFields };

/** The descriptor's count rules, each with its entry property. */
export function countChecksOf(
  descriptor: MediaTypeDescriptor,
  columns: readonly EntryColumn[] = ENTRY_COLUMNS,
): CountCheck[] {
  const fields = entryFieldsOfType(descriptor, columns);
  return descriptor.counts.map((rule) => {
    const field = fields.find(({ name }) => name === rule.field);
    if (!field) throw new Error(`${descriptor.name}: the count ${rule.field} is not a field`);
    return { ...rule, property: field.column.property as keyof EntryFields };
  });
}

const COUNT_CHECKS = byMediaType((descriptor) => countChecksOf(descriptor));

/**
 * The errors of an entry's counts: each is bounded by the title's count when known, however
 * large, else by the rule's cap.
 */
export function countErrors(
  checks: readonly CountCheck[],
  entry: EntryFields,
  title: Pick<TitleWithEntryRow, CountRule['titleCount']>,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const { field, property, titleCount, what, unknownCap } of checks) {
    const known = title[titleCount];
    const max = known ?? unknownCap;
    if ((entry[property] as number) > max) {
      errors.push({
        field,
        message:
          known === null
            ? `must be at most ${max} (the title's ${what} is unknown)`
            : `must be at most ${known}, the title's ${what}`,
      });
    }
  }
  return errors;
}

/** The rules that need the whole entry and the title (contract §6). */
function checkEntryRules(
  mediaType: MediaType,
  entry: EntryFields,
  title: Pick<TitleWithEntryRow, CountRule['titleCount']>,
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
  errors.push(...countErrors(COUNT_CHECKS[mediaType], entry, title));
  if (errors.length > 0) throw ProblemException.validation(errors);
}
