import { article, type MediaType } from '../media-types/media-type';
import type { PutRatingDto } from './dto/entry-classes';
import type { EntryFields } from '../media-types/entry-columns';
import { entryFieldsOfType } from '../media-types/entry-mapping';
import { byMediaType, DESCRIPTOR_LIST, type MediaTypeDescriptor } from '../media-types';

export type { EntryFields } from '../media-types/entry-columns';

/** API field name -> entity property, per media type, from the descriptors and ENTRY_COLUMNS. */
const API_FIELDS = byMediaType((descriptor) =>
  entryFieldsOfType(descriptor).map(({ name, column }) => [name, column.property] as const),
);

/** The fields a PUT body sets; omitted ones are absent, so an update keeps them. */
export function changesFrom(mediaType: MediaType, body: PutRatingDto): Partial<EntryFields> {
  const changes: Record<string, unknown> = {};
  const sent = body as unknown as Record<string, unknown>;
  for (const [apiName, property] of API_FIELDS[mediaType]) {
    if (sent[apiName] !== undefined) changes[property] = sent[apiName];
  }
  return changes;
}

/**
 * Why a PUT body of the media type may not hold a field: "is a manga field; anime entries do not
 * have it" for the fields of other media types (contract §6).
 */
export function otherMediaFieldExplainer(
  descriptor: MediaTypeDescriptor,
  all: readonly MediaTypeDescriptor[] = DESCRIPTOR_LIST,
) {
  const mediaType = descriptor.name;
  const own = new Set(entryFieldsOfType(descriptor).map(({ name }) => name));
  const others = new Map<string, string[]>();
  for (const other of all) {
    if (other.name === mediaType) continue;
    for (const { name } of entryFieldsOfType(other)) {
      if (!own.has(name)) others.set(name, [...(others.get(name) ?? []), other.name]);
    }
  }
  return (field: string): string | undefined => {
    const owners = others.get(field);
    if (!owners) return undefined;
    const kinds = owners.join(' and ');
    return `is ${article(owners[0])} ${kinds} field; ${mediaType} entries do not have it`;
  };
}
