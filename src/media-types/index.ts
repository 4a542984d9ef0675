import { MEDIA_TYPES, type MediaType } from './media-type';
import { ANIME } from './anime.descriptor';
import { MANGA } from './manga.descriptor';
import type { PublicViewOf } from '../ratings/public-view.policy';
import type { MediaTypeDescriptor } from './media-type.descriptor';

/** Every media type's descriptor; the compiler asks for one per name in MEDIA_TYPES. */
export const MEDIA_TYPE_DESCRIPTORS = {
  anime: ANIME,
  manga: MANGA,
} as const satisfies { [M in MediaType]: MediaTypeDescriptor<M> };

type Descriptors = typeof MEDIA_TYPE_DESCRIPTORS;

/** The descriptors in MEDIA_TYPES order: what routes, schemas and statistics are made from. */
export const DESCRIPTOR_LIST: readonly Descriptors[MediaType][] = MEDIA_TYPES.map(
  (mediaType) => MEDIA_TYPE_DESCRIPTORS[mediaType],
);

export function descriptorOf<M extends MediaType>(mediaType: M): Descriptors[M] {
  return MEDIA_TYPE_DESCRIPTORS[mediaType];
}

/** An entry of the media type as read (GET): AnimeRatingView, MangaRatingView… */
export type RatingViewOf<M extends MediaType> = InstanceType<Descriptors[M]['view']>;

/** An entry of the media type as another user sees it (public-view.policy). */
export type PublicRatingViewOf<M extends MediaType> = PublicViewOf<RatingViewOf<M>>;

/** Whose view of an entry: its owner's (`own`), or another user's (`public`, public-view.policy). */
export type EntryView = 'own' | 'public';

/** An entry of the media type in the given view. */
export type EntryViewOf<M extends MediaType, V extends EntryView> = {
  own: RatingViewOf<M>;
  public: PublicRatingViewOf<M>;
}[V];

/** The profile statistics of the media type. */
export type StatisticsOf<M extends MediaType> = ReturnType<Descriptors[M]['statistics']['of']>;

export type { CountRule, MediaTypeDescriptor, TitleCount } from './media-type.descriptor';

/** One value per media type, made from its descriptor (once, when a module loads). */
export function byMediaType<T>(
  make: (descriptor: Descriptors[MediaType]) => T,
): Record<MediaType, T> {
  const values: Partial<Record<MediaType, T>> = {};
  for (const descriptor of DESCRIPTOR_LIST) values[descriptor.name] = make(descriptor);
  return values as Record<MediaType, T>;
}
