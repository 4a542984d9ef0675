import { ProblemException } from '../common/problem';

export const MEDIA_TYPES = ['anime', 'manga'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

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
