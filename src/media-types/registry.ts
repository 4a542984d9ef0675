import { ANIME } from './anime.descriptor';
import { MANGA } from './manga.descriptor';

/**
 * Every media type's descriptor, in the order routes, schemas and statistics list them: a new
 * media type is one more descriptor here (MEDIA_TYPES and the type MediaType follow from it).
 */
export const MEDIA_TYPE_DESCRIPTORS = [ANIME, MANGA] as const;
