import { rawInteger } from '../database/raw-values';
import type { MediaTypeDescriptor } from './media-type.descriptor';
import type { ListTotals } from './list-totals';

/** Mean rounded half up, in integers: floor((2·sum + n) / 2n). */
export function roundedMean(sum: number, n: number): number {
  return n === 0 ? 0 : Math.floor((2 * sum + n) / (2 * n));
}

/** The profile's `average` (contract §8): the mean score of the entries scoring above 0. */
export function averageScore(row: ListTotals | undefined): number {
  return roundedMean(rawInteger(row?.score_sum), rawInteger(row?.scored));
}

/**
 * What every media type's statistics begin with (contract §8): the entries per status, `ongoing`
 * under the type's own word (`watching`, `reading`), then the average score.
 */
export function sharedStatistics<Ongoing extends string>(
  row: ListTotals | undefined,
  ongoing: Ongoing,
) {
  return {
    ...({ [ongoing]: rawInteger(row?.ongoing) } as Record<Ongoing, number>),
    completed: rawInteger(row?.completed),
    on_hold: rawInteger(row?.on_hold),
    dropped: rawInteger(row?.dropped),
    bookmark: rawInteger(row?.bookmark),
    average: averageScore(row),
  };
}

/** The profile's statistics of the media type (contract §8): the shared numbers, then its sums. */
export function statisticsOf<D extends MediaTypeDescriptor>(
  descriptor: D,
  row: ListTotals | undefined,
): Record<string, number> {
  const statistics: Record<string, number> = sharedStatistics(row, descriptor.statistics.ongoing);
  for (const [name, sum] of Object.entries(descriptor.statistics.sums)) {
    statistics[name] = sum.of(row);
  }
  return statistics;
}
