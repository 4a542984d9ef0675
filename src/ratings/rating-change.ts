import type { MediaType } from '../media-types/media-type';
import type { RatingView } from '../media-types';
import type { PutRatingDto } from './dto/entry-classes';

export type RatingChangeKind = 'created' | 'updated' | 'deleted';

/** What made a write: a PUT (or a history revert) on /v1, an import, a scrobble. */
export type WriteSource = 'api' | 'import' | 'scrobble';

/** One write of one entry, as the write-path hooks and the `rating.changed` event see it. */
export interface RatingChange {
  kind: RatingChangeKind;
  userId: number;
  /**
   * The user's name when the writer was given it (a request's principal, read with its token:
   * names never change), else null (the CLI, imports): a hook that needs it reads it then.
   */
  userName: string | null;
  mediaType: MediaType;
  titleId: number;
  externalId: number | null;
  /** The write's position in the user's history of this media type: strictly increasing. */
  revision: number;
  /** The entry as GET returns it after the write; null for a deletion. */
  entry: RatingView | null;
  /** The entry as GET returned it before the write; null when the write created it. */
  previous: RatingView | null;
  /** The fields the write was given, as a PUT body names them; null for a deletion. */
  body: PutRatingDto | null;
  source: WriteSource;
  /**
   * For `api` writes, the name of the OAuth client the request's token was issued to; null for
   * tokens of the CLI or of the identity provider, and for other sources.
   */
  client: string | null;
  /** The write's time, to the second. */
  at: Date;
  /** Present when the write started a rewatch (reread) and finished it at once (PutOptions). */
  rewatchedAtOnce?: true;
}

/**
 * Emitted (via @nestjs/event-emitter) with a RatingChange after the write's transaction commits.
 * Best effort: a crash right after the commit skips it. What must not be skipped belongs in a
 * RatingWriteHooks hook, inside the transaction.
 */
export const RATING_CHANGED_EVENT = 'rating.changed';

declare module '../common/domain-events' {
  interface DomainEvents {
    [RATING_CHANGED_EVENT]: RatingChange;
  }
}
