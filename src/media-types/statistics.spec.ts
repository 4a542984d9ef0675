import { roundedMean, sharedStatistics } from './statistics';

describe('roundedMean', () => {
  it.each([
    [0, 0, 0],
    [85 + 70, 2, 78], // 77.5 rounds half up
    [5, 1, 5],
    [5 + 10, 2, 8], // 7.5 -> 8
    [1 + 2, 2, 2], // 1.5 -> 2
    [100 + 99 + 99, 3, 99], // 99.33
    [10 + 11 + 11, 3, 11], // 10.67
  ])('sum %i over %i entries is %i', (sum, n, expected) => {
    expect(roundedMean(sum, n)).toBe(expected);
  });
});

describe('sharedStatistics', () => {
  it('names the ongoing count as the type does, first, then the other statuses and the average', () => {
    const totals = {
      media_type: 'anime' as const,
      ongoing: '2',
      completed: 3,
      on_hold: 0,
      dropped: '1',
      bookmark: 4,
      score_sum: 155,
      scored: 2,
      episodes: 0,
      chapters: 0,
      volumes: 0,
      repeats: 0,
      episode_minutes: 0,
    };
    expect(Object.entries(sharedStatistics(totals, 'watching'))).toEqual([
      ['watching', 2],
      ['completed', 3],
      ['on_hold', 0],
      ['dropped', 1],
      ['bookmark', 4],
      ['average', 78],
    ]);
  });
});
