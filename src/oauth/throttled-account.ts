/**
 * What an account name counts under, for the sign-in throttle and its resets: compared
 * case-insensitively, cut to the longest name.
 */
export function throttledAccount(name: string): string {
  return name.slice(0, 64).toLowerCase();
}
