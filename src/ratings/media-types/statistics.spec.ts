import { roundedMean } from './statistics';

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
