import { DESCRIPTOR_LIST, descriptorOf } from '../../src/media-types';
import { entryFieldsOfType } from '../../src/media-types/entry-mapping';
import type { MediaType } from '../../src/media-types/media-type';

/*
 * What the tests expect of an entry, from the descriptors and ENTRY_COLUMNS rather than from lists
 * of their own: a field added to the column list (docs/extending.md "Add a field to entries") changes these
 * with no test edit.
 */

/** The fields of the media type's entries, in column order. */
export function entryFieldNames(mediaType: MediaType): string[] {
  return entryFieldsOfType(descriptorOf(mediaType)).map(({ name }) => name);
}

/** The keys of an entry as read (contract §7), in order: title, fields, timestamps. */
export function viewKeys(mediaType: MediaType): string[] {
  return ['id', 'external_id', 'title', ...entryFieldNames(mediaType), 'created_at', 'updated_at'];
}

/** Every media type's entry fields, and the PUT body's `touch`: what a PUT body may hold. */
export function putFieldNames(): string[] {
  const fields = DESCRIPTOR_LIST.flatMap(({ name }) => entryFieldNames(name));
  return [...new Set([...fields, 'touch'])];
}

/**
 * The fields a MyAnimeList export carries (contract §13): the title's, the shared fields the
 * MyAnimeList format has elements for, and the media type's own that its format maps.
 */
export function malCarriedFields(mediaType: MediaType): string[] {
  const format = descriptorOf(mediaType).mal;
  if (!format) return [];
  const own = new Set<string>([
    ...format.progress.map(({ field }) => field),
    format.times.field,
    format.repeating.field,
    format.desire.field,
  ]);
  const shared = new Set([
    'status',
    'public_rating',
    'start_date',
    'end_date',
    'notes',
    'priority',
  ]);
  return [
    'id',
    'external_id',
    'title',
    ...entryFieldNames(mediaType).filter((field) => own.has(field) || shared.has(field)),
  ];
}

/** Each field's value on an entry created without it (contract §6), by API name. */
export function fieldDefaults(mediaType: MediaType): Record<string, unknown> {
  return Object.fromEntries(
    entryFieldsOfType(descriptorOf(mediaType))
      .filter(({ column }) => column.default !== undefined)
      .map(({ name, column }) => [name, column.default]),
  );
}
