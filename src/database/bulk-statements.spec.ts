import { inBatches } from './bulk-statements';

describe('inBatches', () => {
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('keeps every item once, in order', () => {
    for (const n of [0, 1, 7, 199, 200, 201, 300, 1000, 1234]) {
      expect(inBatches(range(n), 200).flat()).toEqual(range(n));
    }
  });

  it('cuts what is left after the full batches into decreasing powers of two', () => {
    expect(inBatches(range(300), 256).map((batch) => batch.length)).toEqual([256, 32, 8, 4]);
    expect(inBatches(range(1234), 200).map((batch) => batch.length)).toEqual([
      200, 200, 200, 200, 200, 200, 32, 2,
    ]);
  });

  it('makes at most log2(size) + 2 different lengths whatever the counts', () => {
    const lengths = new Set<number>();
    for (let n = 0; n <= 2000; n++) {
      for (const batch of inBatches(range(n), 200)) lengths.add(batch.length);
    }
    expect(lengths.size).toBeLessThanOrEqual(Math.floor(Math.log2(200)) + 2);
  });
});
