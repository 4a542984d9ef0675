/** The rate-limit rows of the public reads: anime and manga lists share one (contract §5). */
export const PUBLIC_ENDPOINTS = {
  list: 'public.ratings',
  profile: 'public.profile',
} as const;
