import { rawInteger } from '../../database/raw-values';
import type { ListTotals } from '../ratings.repository';

/** Mean rounded half up, in integers: floor((2·sum + n) / 2n). */
export function roundedMean(sum: number, n: number): number {
  return n === 0 ? 0 : Math.floor((2 * sum + n) / (2 * n));
}

/** The profile's `average` (contract §8): the mean score of the entries scoring above 0. */
export function averageScore(row: ListTotals | undefined): number {
  return roundedMean(rawInteger(row?.score_sum), rawInteger(row?.scored));
}

/** The entries per status that every media type's statistics show under these names. */
export function statusCounts(row: ListTotals | undefined) {
  return {
    completed: rawInteger(row?.completed),
    on_hold: rawInteger(row?.on_hold),
    dropped: rawInteger(row?.dropped),
    bookmark: rawInteger(row?.bookmark),
  };
}
