import type { MediaType } from '../media-types/media-type';
import { DESCRIPTOR_LIST } from '../media-types';

/** Each media type's scope (from its descriptor), then the profile's. */
export const SCOPES = {
  ...(Object.fromEntries(DESCRIPTOR_LIST.map(({ name, scope }) => [name, scope])) as {
    [M in MediaType]: `ratings.${M}`;
  }),
  profile: 'user.profile',
} as const;

export type Scope = (typeof SCOPES)[keyof typeof SCOPES];
export const ALL_SCOPES: readonly Scope[] = Object.values(SCOPES);

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
