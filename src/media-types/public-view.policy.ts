import type { RatingView } from './rating-view';

/**
 * What a reader who is not the owner may see of a user's list (contract §18), decided here and
 * nowhere else: every public read (the public list, the public profile's statistics) and the
 * write path's public version take their rule from this file.
 *
 * - Only entries with `is_visible` true exist for such a reader: no entry, count or sum of a
 *   private one.
 * - Of a visible entry, everything GET shows but `personal_rating` (contract §6: "for the user
 *   alone"), `notes` and `is_visible`. Their columns (named as the fields) are not even read: a
 *   public read selects NULL in their place.
 */
export const PUBLIC_VIEW_HIDDEN_FIELDS = ['personal_rating', 'notes', 'is_visible'] as const;

type HiddenField = (typeof PUBLIC_VIEW_HIDDEN_FIELDS)[number];
export type PublicViewOf<V extends RatingView> = Omit<V, HiddenField>;

/** The SQL condition, on the entries table under the alias `e`, of the entries others may see. */
export const PUBLIC_ENTRY_CONDITION = 'e.is_visible = 1';

/** A visible entry as another user sees it. */
export function publicEntryView<V extends RatingView>(view: V): PublicViewOf<V> {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { personal_rating, notes, is_visible, ...shown } = view;
  return shown;
}

/**
 * Whether a write that turned `before` into `after` (null: no entry) changes what others see:
 * a visible entry created or deleted, a switch between visible and private, or a change of a
 * shown field of a visible entry. Private entries, and the hidden fields of visible ones, never do.
 */
export function changesPublicView(before: RatingView | null, after: RatingView | null): boolean {
  const shownBefore = before?.is_visible ? publicEntryView(before) : null;
  const shownAfter = after?.is_visible ? publicEntryView(after) : null;
  if (shownBefore === null || shownAfter === null) return shownBefore !== shownAfter;
  const fields = new Set([...Object.keys(shownBefore), ...Object.keys(shownAfter)]);
  return [...fields].some(
    (field) =>
      (shownBefore as Record<string, unknown>)[field] !==
      (shownAfter as Record<string, unknown>)[field],
  );
}
