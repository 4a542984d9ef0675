import type { MediaType } from '../common/media-type';

export const SCOPES = {
  anime: 'ratings.anime',
  manga: 'ratings.manga',
  profile: 'user.profile',
} as const satisfies Record<MediaType | 'profile', string>;

export type Scope = (typeof SCOPES)[keyof typeof SCOPES];
export const ALL_SCOPES: readonly Scope[] = Object.values(SCOPES);

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
