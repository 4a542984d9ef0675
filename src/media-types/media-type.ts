import { Column, PrimaryColumn } from 'typeorm';
import { ProblemException } from '../common/problem';
import { MEDIA_TYPE_DESCRIPTORS } from './registry';

export type MediaType = (typeof MEDIA_TYPE_DESCRIPTORS)[number]['name'];
export const MEDIA_TYPES: readonly MediaType[] = MEDIA_TYPE_DESCRIPTORS.map(({ name }) => name);

/**
 * The length of every `media_type` column. A media type with a longer name needs it raised, and a
 * migration that widens the columns (widenMediaTypeColumns, src/database/media-type-columns.ts).
 */
export const MEDIA_TYPE_LENGTH = 5;

/** `Anime`, `Manga`, `LightNovel`: for operation ids and schema names. */
export function capitalized(mediaType: string): string {
  return mediaType
    .split('_')
    .map((word) => `${word[0].toUpperCase()}${word.slice(1)}`)
    .join('');
}

/** The indefinite article before the media type's name: "an anime", "a manga". */
export function article(mediaType: string): 'a' | 'an' {
  return /^[aeiou]/.test(mediaType) ? 'an' : 'a';
}

export function isMediaType(value: string): value is MediaType {
  return (MEDIA_TYPES as readonly string[]).includes(value);
}

/** "anime or manga" (with more types: "a, b or c"). */
export function mediaTypeChoices(quote = ''): string {
  const names = MEDIA_TYPES.map((name) => `${quote}${name}${quote}`);
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** The 404 of a `{mediaType}` path segment that names no media type. */
export function unknownMediaType(mediaType: string): ProblemException {
  return ProblemException.notFound(`Unknown media type "${mediaType}": use ${mediaTypeChoices()}`);
}

/** A `media_type` column, of MEDIA_TYPE_LENGTH (a primary key column when `primary`). */
export function MediaTypeColumn({ primary = false } = {}): PropertyDecorator {
  const options = { name: 'media_type', type: 'varchar', length: MEDIA_TYPE_LENGTH } as const;
  return primary ? PrimaryColumn(options) : Column(options);
}
