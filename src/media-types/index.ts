import type { EntryValues } from './entry-columns';
import { MEDIA_TYPES, type MediaType } from './media-type';
import type { PublicViewOf } from './public-view.policy';
import { MEDIA_TYPE_DESCRIPTORS } from './registry';
import type { RatingView } from './rating-view';
import type { MediaTypeDescriptor } from './media-type.descriptor';

export { MEDIA_TYPE_DESCRIPTORS } from './registry';
export type { RatingView } from './rating-view';

type Descriptors = (typeof MEDIA_TYPE_DESCRIPTORS)[number];

/** The descriptor of the media type named M. */
export type DescriptorOf<M extends MediaType> = Extract<Descriptors, { name: M }>;

const BY_NAME = Object.fromEntries(
  MEDIA_TYPE_DESCRIPTORS.map((descriptor) => [descriptor.name, descriptor]),
) as { [M in MediaType]: DescriptorOf<M> };

/** The descriptors in MEDIA_TYPES order: what routes, schemas and statistics are made from. */
export const DESCRIPTOR_LIST: readonly MediaTypeDescriptor<MediaType>[] = MEDIA_TYPE_DESCRIPTORS;

export function descriptorOf<M extends MediaType>(mediaType: M): DescriptorOf<M> {
  return BY_NAME[mediaType];
}

type OwnFieldsOf<M extends MediaType> = DescriptorOf<M>['ownFields'];

/** An entry of the media type as read (GET): the shared view and the type's own fields. */
export type RatingViewOf<M extends MediaType> = RatingView & {
  -readonly [F in keyof OwnFieldsOf<M>]: OwnFieldsOf<M>[F] extends {
    column: infer C extends keyof EntryValues;
  }
    ? EntryValues[C]
    : never;
};

/** An entry of the media type as another user sees it (public-view). */
export type PublicRatingViewOf<M extends MediaType> = PublicViewOf<RatingViewOf<M>>;

/** Whose view of an entry: its owner's (`own`), or another user's (`public`, public-view). */
export type EntryView = 'own' | 'public';

/** An entry of the media type in the given view. */
export type EntryViewOf<M extends MediaType, V extends EntryView> = {
  own: RatingViewOf<M>;
  public: PublicRatingViewOf<M>;
}[V];

/** The profile statistics of the media type (contract §8), as statisticsOf() computes them. */
export type StatisticsOf<M extends MediaType> = {
  [K in DescriptorOf<M>['statistics']['ongoing']]: number;
} & { completed: number; on_hold: number; dropped: number; bookmark: number; average: number } & {
  -readonly [K in keyof DescriptorOf<M>['statistics']['sums']]: number;
};

export type {
  CountRule,
  MediaTypeDescriptor,
  OwnField,
  StatisticsSum,
  TitleCount,
} from './media-type.descriptor';

/** One value per media type, made from its descriptor (once, when a module loads). */
export function byMediaType<T>(
  make: (descriptor: MediaTypeDescriptor<MediaType>) => T,
): Record<MediaType, T> {
  const values: Partial<Record<MediaType, T>> = {};
  for (const descriptor of DESCRIPTOR_LIST) values[descriptor.name] = make(descriptor);
  return values as Record<MediaType, T>;
}

export { MEDIA_TYPES };
