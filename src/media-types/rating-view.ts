import type { EntryValues, SharedColumnName } from './entry-columns';

/** What every media type's entry shows (contract §7): the title, the shared fields, the times. */
export type RatingView = { id: number; external_id: number | null; title: string } & Pick<
  EntryValues,
  SharedColumnName
> & { created_at: string; updated_at: string };
