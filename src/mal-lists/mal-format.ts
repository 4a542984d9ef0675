import { assertNever } from '../common/assert-never';
import type { MediaType } from '../media-types/media-type';
import { DESCRIPTOR_LIST, descriptorOf } from '../media-types';
import type { RatingStatus } from '../media-types/rating-status';
import type { ExportedStatus, MalListFormat } from '../media-types/mal-list-format';

/** The media types MyAnimeList keeps lists of, with their export formats (from the descriptors). */
export const MAL_LIST_TYPES: readonly { mediaType: MediaType; format: MalListFormat }[] =
  DESCRIPTOR_LIST.flatMap((descriptor) =>
    descriptor.mal ? [{ mediaType: descriptor.name, format: descriptor.mal }] : [],
  );

export function malFormatOf(mediaType: MediaType): MalListFormat {
  const format = descriptorOf(mediaType).mal;
  if (!format) throw new Error(`MyAnimeList has no ${mediaType} lists`);
  return format;
}

/** Elements whose text an export writes as CDATA. */
export const CDATA_ELEMENTS: ReadonlySet<string> = new Set([
  'my_comments',
  'my_tags',
  ...MAL_LIST_TYPES.flatMap(({ format }) => [format.titleElement, ...format.cdata]),
]);

export function malStatusOf(format: MalListFormat, status: ExportedStatus): string {
  switch (status) {
    case 'ongoing':
      return format.statusNames.ongoing;
    case 'completed':
      return 'Completed';
    case 'on_hold':
      return 'On-Hold';
    case 'dropped':
      return 'Dropped';
    case 'bookmark':
      return format.statusNames.bookmark;
    default:
      return assertNever(status, 'status');
  }
}

const STATUS_BY_MAL: Record<string, RatingStatus> = {
  watching: 'ongoing',
  reading: 'ongoing',
  '1': 'ongoing',
  completed: 'completed',
  '2': 'completed',
  'on-hold': 'on_hold',
  'on hold': 'on_hold',
  '3': 'on_hold',
  dropped: 'dropped',
  '4': 'dropped',
  'plan to watch': 'bookmark',
  'plan to read': 'bookmark',
  '6': 'bookmark',
};

/** undefined when the table does not map the value. */
export function statusOfMal(value: string): RatingStatus | undefined {
  return STATUS_BY_MAL[value.trim().toLowerCase()];
}

const DESIRES = ['', 'Very Low', 'Low', 'Medium', 'High', 'Very High'];

export function malDesireOf(desire: number): string {
  return DESIRES[desire] ?? '';
}

export function desireOfMal(value: string): number | undefined {
  const text = value.trim();
  if (/^[0-5]$/.test(text)) return Number(text);
  const index = DESIRES.findIndex((name) => name.toLowerCase() === text.toLowerCase());
  return index === -1 ? undefined : index;
}

export function malPriorityOf(priority: number): string {
  return priority === 0 ? 'Low' : priority === 1 ? 'Medium' : 'High';
}

const PRIORITY_BY_MAL: Record<string, number> = { low: 0, medium: 1, high: 2 };

export function priorityOfMal(value: string): number | undefined {
  return PRIORITY_BY_MAL[value.trim().toLowerCase()];
}

export const NO_DATE = '0000-00-00';
