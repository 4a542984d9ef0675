import type { MediaType } from '../media-types/media-type';
import { isCalendarDate } from '../ratings/dto/validation-decorators';
import { MAX_NOTES_LENGTH } from '../media-types/entry-columns';
import type { RatingStatus } from '../media-types/rating-status';
import { desireOfMal, malFormatOf, NO_DATE, priorityOfMal, statusOfMal } from './mal-format';
import type { MalElement } from './mal-xml-reader';

/** An element the table cannot map: skipped as `invalid` with this detail. */
export class InvalidElementError extends Error {}

const MAX_TIMES = 1000;

/** What one element sets, as PUT body fields (contract §13's table); missing elements are absent. */
export interface ImportedFields {
  status?: RatingStatus;
  public_rating?: number;
  start_date?: string | null;
  end_date?: string | null;
  notes?: string;
  priority?: number;
  /** The media type's own fields (MalListFormat): counts, repeats, the desire. */
  [ownField: string]: string | number | boolean | null | undefined;
}

/** The element's values mapped to entry fields; throws InvalidElementError naming the first bad one. */
export function importedFields(mediaType: MediaType, element: MalElement): ImportedFields {
  const values = element.values;
  /** The trimmed text; undefined when the element is missing or empty (the stored value stays). */
  const given = (name: string): string | undefined => {
    const text = values.get(name)?.trim();
    return text === undefined || text === '' ? undefined : text;
  };
  const bad = (name: string, text: string, expected: string): never => {
    throw new InvalidElementError(`${name} "${text.slice(0, 100)}" ${expected}`);
  };
  const integer = (name: string, max: number): number | undefined => {
    const text = given(name);
    if (text === undefined) return undefined;
    if (!/^\d{1,9}$/.test(text) || Number(text) > max) {
      return bad(name, text, `is not an integer from 0 to ${max}`);
    }
    return Number(text);
  };
  const date = (name: string): string | null | undefined => {
    const text = given(name);
    if (text === undefined) return undefined;
    if (text === NO_DATE || /^\d{4}-(00-\d{2}|\d{2}-00)$/.test(text)) return null;
    return isCalendarDate(text) ? text : bad(name, text, 'is not a date YYYY-MM-DD');
  };
  const flag = (name: string): boolean | undefined => {
    const text = given(name)?.toUpperCase();
    if (text === undefined) return undefined;
    if (text === '1' || text === 'YES') return true;
    if (text === '0' || text === 'NO') return false;
    return bad(name, text, 'is not 0, 1, YES or NO');
  };
  const desire = (name: string): number | undefined => {
    const text = values.get(name);
    if (text === undefined) return undefined;
    return (
      desireOfMal(text) ??
      bad(name, text, 'is not empty, 0–5, Very Low, Low, Medium, High or Very High')
    );
  };

  const fields: ImportedFields = {};
  const statusText = given('my_status');
  if (statusText !== undefined) {
    fields.status = statusOfMal(statusText) ?? bad('my_status', statusText, 'is not a status');
  }
  const score = integer('my_score', 10);
  if (score !== undefined) fields.public_rating = score;
  const start = date('my_start_date');
  if (start !== undefined) fields.start_date = start;
  const finish = date('my_finish_date');
  if (finish !== undefined) fields.end_date = finish;
  const priorityText = given('my_priority');
  if (priorityText !== undefined) {
    fields.priority =
      priorityOfMal(priorityText) ?? bad('my_priority', priorityText, 'is not Low, Medium or High');
  }
  const comments = values.get('my_comments');
  const tags = values.get('my_tags')?.trim();
  if (comments !== undefined || tags) {
    const lines = comments !== undefined && comments !== '' ? [comments] : [];
    if (tags) lines.push(`Tags: ${tags}`);
    const notes = lines.join('\n');
    if (notes.length > MAX_NOTES_LENGTH) {
      throw new InvalidElementError(
        `my_comments (with my_tags) is longer than ${MAX_NOTES_LENGTH} characters`,
      );
    }
    fields.notes = notes;
  }

  // Counts above any bound are refused by the rules of contract §6, with the title's counts.
  const format = malFormatOf(mediaType);
  for (const { element, field } of format.progress) {
    setIfGiven(fields, field, integer(element, 999_999_999));
  }
  const times = integer(format.times.element, 999_999_999);
  if (times !== undefined) fields[format.times.field] = Math.min(times, MAX_TIMES);
  setIfGiven(fields, format.repeating.field, flag(format.repeating.element));
  setIfGiven(fields, format.desire.field, desire(format.desire.element));
  return fields;
}

function setIfGiven(
  fields: ImportedFields,
  key: string,
  value: number | boolean | undefined,
): void {
  if (value !== undefined) fields[key] = value;
}

/** `update_on_import`: 1 applies the element to an existing entry; 0 or missing leaves it alone. */
export function updatesExisting(element: MalElement): boolean {
  const text = element.values.get('update_on_import')?.trim();
  if (text === undefined || text === '' || text === '0') return false;
  if (text === '1') return true;
  throw new InvalidElementError(`update_on_import "${text.slice(0, 100)}" is not 0 or 1`);
}
