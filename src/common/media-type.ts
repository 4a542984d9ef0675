export const MEDIA_TYPES = ['anime', 'manga'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
