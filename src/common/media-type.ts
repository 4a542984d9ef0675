export const MEDIA_TYPES = ['anime', 'manga'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** `Anime`, `Manga`: for operation ids and schema names. */
export function capitalized(mediaType: MediaType): string {
  return `${mediaType[0].toUpperCase()}${mediaType.slice(1)}`;
}

/** The indefinite article before the media type's name: "an anime", "a manga". */
export function article(mediaType: MediaType): 'a' | 'an' {
  return /^[aeiou]/.test(mediaType) ? 'an' : 'a';
}
