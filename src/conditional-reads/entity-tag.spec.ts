import { entityTag, EntityTagKey, ifNoneMatchMatches } from './entity-tag';

const KEY: EntityTagKey = {
  userId: 7,
  view: 'own',
  endpoint: 'ratings.get-all',
  mediaType: 'anime',
  query: { status: 'completed', limit: 10 },
  data: [3, 'x'],
};

describe('entityTag', () => {
  it('is a quoted strong tag, the same for the same key whatever the query order', () => {
    const tag = entityTag(KEY);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(entityTag({ ...KEY, query: { limit: 10, status: 'completed' } })).toBe(tag);
  });

  it.each<[string, Partial<EntityTagKey>]>([
    ['user', { userId: 8 }],
    ['view', { view: 'public' }],
    ['endpoint', { endpoint: 'profile' }],
    ['media type', { mediaType: 'manga' }],
    ['query', { query: { status: 'completed' } }],
    ['data', { data: [4, 'x'] }],
  ])('changes with the %s', (_name, change) => {
    expect(entityTag({ ...KEY, ...change })).not.toBe(entityTag(KEY));
  });

  it('stays the tag earlier versions sent for the same key and body (caches keep working)', () => {
    // SHA-256 of the key's JSON followed by the body, as computed before this version.
    expect(entityTag({ ...KEY, data: ['body'] }, '{"title":"Frieren"}')).toBe(
      '"hqIou8hoYcKwvFxjsKWDxruGKSv"',
    );
  });

  it('changes with the body', () => {
    expect(entityTag(KEY, '[1]')).toBe(entityTag(KEY, '[1]'));
    expect(entityTag(KEY, '[1]')).not.toBe(entityTag(KEY, '[2]'));
  });
});

describe('ifNoneMatchMatches', () => {
  const tag = '"abc"';
  it.each(['"abc"', 'W/"abc"', '"x", W/"abc"', '*', ' * '])('matches %p', (header) => {
    expect(ifNoneMatchMatches(header, tag)).toBe(true);
  });

  it.each([undefined, '"x","y"', 'abc', '"abcd"', ''])('does not match %p', (header) => {
    expect(ifNoneMatchMatches(header, tag)).toBe(false);
  });

  it('compares weak tags weakly', () => {
    expect(ifNoneMatchMatches('"abc"', 'W/"abc"')).toBe(true);
  });
});
