import type { RatingViewOf } from '.';
import { changesPublicView, publicEntryView } from './public-view.policy';

type AnimeRatingView = RatingViewOf<'anime'>;

// A cast rather than a type: the fields added to the column list later need no edit here.
const ENTRY = {
  id: 12,
  external_id: 5114,
  title: 'Fullmetal Alchemist: Brotherhood',
  status: 'completed',
  is_visible: true,
  public_rating: 9,
  public_fraction: 5,
  personal_rating: 95,
  episodes_watched: 64,
  start_date: '2024-01-02',
  end_date: null,
  is_rewatching: false,
  times_rewatched: 0,
  rewatch_desire: 0,
  notes: 'private thoughts',
  priority: 0,
  created_at: '2024-01-02T10:00:00Z',
  updated_at: '2024-01-03T08:30:00Z',
} as AnimeRatingView;
const PRIVATE = { ...ENTRY, is_visible: false };

describe('publicEntryView', () => {
  it('drops personal_rating, notes and is_visible, and keeps every other field', () => {
    const shown = publicEntryView(ENTRY);
    expect(Object.keys(shown).sort()).toEqual(
      Object.keys(ENTRY)
        .filter((key) => !['personal_rating', 'notes', 'is_visible'].includes(key))
        .sort(),
    );
    expect(JSON.stringify(shown)).not.toContain('private thoughts');
  });
});

describe('changesPublicView', () => {
  it.each<[string, AnimeRatingView | null, AnimeRatingView | null, boolean]>([
    ['a visible entry created', null, ENTRY, true],
    ['a visible entry deleted', ENTRY, null, true],
    ['made private', ENTRY, PRIVATE, true],
    ['made visible', PRIVATE, ENTRY, true],
    ['a shown field of a visible entry', ENTRY, { ...ENTRY, episodes_watched: 1 }, true],
    ['its updated_at (touch)', ENTRY, { ...ENTRY, updated_at: '2025-01-01T00:00:00Z' }, true],
    ['a private entry created', null, PRIVATE, false],
    ['a private entry deleted', PRIVATE, null, false],
    ['a private entry edited', PRIVATE, { ...PRIVATE, public_rating: 1 }, false],
    ['the notes of a visible entry', ENTRY, { ...ENTRY, notes: 'other' }, false],
    ['the personal rating of a visible entry', ENTRY, { ...ENTRY, personal_rating: 3 }, false],
    ['nothing', ENTRY, { ...ENTRY }, false],
  ])('%s: %p', (_what, before, after, expected) => {
    expect(changesPublicView(before, after)).toBe(expected);
  });
});
