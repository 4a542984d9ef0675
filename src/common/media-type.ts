export const MEDIA_TYPES = ['anime', 'manga'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export function isMediaType(value: unknown): value is MediaType {
  return value === 'anime' || value === 'manga';
}
