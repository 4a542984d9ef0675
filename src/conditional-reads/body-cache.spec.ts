import { BodyCache } from './body-cache';

const body = (bytes: number, link: string | null = null) => ({
  json: Buffer.alloc(bytes, 0x20),
  link,
});

describe('BodyCache', () => {
  it('returns what was stored under the tag, with its Link', () => {
    const cache = new BodyCache(1000);
    cache.set('"a"', body(10, '</next>; rel="next"'));
    expect(cache.get('"a"')).toEqual(body(10, '</next>; rel="next"'));
    expect(cache.get('"b"')).toBeUndefined();
  });

  it('stays within its bound, evicting the least recently used first', () => {
    const cache = new BodyCache(100);
    cache.set('"a"', body(20));
    cache.set('"b"', body(20));
    cache.set('"c"', body(20));
    cache.get('"a"');
    cache.set('"d"', body(25));
    cache.set('"e"', body(25));
    expect(cache.size.bytes).toBeLessThanOrEqual(100);
    expect(cache.get('"a"')).toBeDefined();
    expect(cache.get('"b"')).toBeUndefined();
  });

  it('does not keep a body above a quarter of the bound', () => {
    const cache = new BodyCache(100);
    cache.set('"big"', body(26));
    expect(cache.get('"big"')).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('keeps nothing with a bound of 0', () => {
    const cache = new BodyCache(0);
    cache.set('"a"', body(1));
    expect(cache.size.entries).toBe(0);
  });
});
