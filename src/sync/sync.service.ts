import { Inject, Injectable } from '@nestjs/common';
import type { MediaType } from '../media-types/media-type';
import { ProblemException, PROBLEMS } from '../common/problem';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CatalogService } from '../catalog/catalog.service';
import { RatingsService, type RatingViewOf } from '../ratings/ratings.service';
import { Cursor, decodeCursor, encodeCursor } from './cursor';
import { SyncDeletionsRepository } from './sync-deletions.repository';
import { SyncKeyService } from './sync-key.service';

/** A title deleted from the list, as the feed names it. */
export interface DeletedTitle {
  id: number;
  external_id: number | null;
}

export interface ChangesPage<M extends MediaType> {
  changes: RatingViewOf<M>[];
  deleted: DeletedTitle[];
  cursor: string;
  has_more: boolean;
}

export const SYNC_PROBLEMS = {
  cursorExpired: { slug: 'sync-cursor-expired', title: 'Sync cursor expired' },
};

/**
 * The changes feed of contract §12. A cursor is a list revision: every write of the list takes
 * the next revision under a lock held until it commits, so once the list's revision reads C,
 * every write up to C is committed and none later can take a revision up to C. A page is the
 * items with a revision above the cursor's and at most C, oldest first; a write that commits
 * later has a revision above C and is on a later page.
 */
@Injectable()
export class SyncService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** The ratings module's reads of entries and list state. */
    private readonly ratings: RatingsService,
    private readonly deletions: SyncDeletionsRepository,
    private readonly keys: SyncKeyService,
    private readonly catalog: CatalogService,
  ) {}

  async changes<M extends MediaType>(
    userId: number,
    mediaType: M,
    since: string | undefined,
    limit: number,
  ): Promise<ChangesPage<M> | null> {
    const key = await this.keys.get();
    const state = await this.ratings.listState(userId, mediaType);
    if (!state) return null;
    const userCreatedAt = Date.parse(state.userCreatedAt) / 1000;
    const now = Math.floor(Date.now() / 1000);

    let from: Cursor | null = null;
    if (since !== undefined) {
      from = decodeCursor(key, since);
      if (
        !from ||
        from.userId !== userId ||
        from.userCreatedAt !== userCreatedAt ||
        from.mediaType !== mediaType ||
        from.position > state.revision
      ) {
        throw ProblemException.validation(
          [{ field: 'since', message: 'is not a cursor issued for your list of this media type' }],
          PROBLEMS.invalidParameter,
        );
      }
      if (now - from.issuedAt > this.config.sync.retentionSeconds) {
        throw ProblemException.of(
          410,
          SYNC_PROBLEMS.cursorExpired,
          'This cursor is older than the retention period: sync again from the start, without since',
        );
      }
    }

    const after = from?.position ?? 0;
    const upTo = state.revision;
    const [written, deleted] = await Promise.all([
      this.ratings.writtenBetween(userId, mediaType, after, upTo, limit + 1),
      // The first sync sends the list as it is: nothing to delete.
      from ? this.deletions.deletedBetween(userId, mediaType, after, upTo, limit + 1) : [],
    ]);

    const page: ({ revision: number } & ({ entry: RatingViewOf<M> } | { titleId: number }))[] = [
      ...written,
      ...deleted,
    ].sort((a, b) => a.revision - b.revision);
    const hasMore = page.length > limit;
    if (hasMore) page.length = limit;
    const deletedIds = page.flatMap((item) => ('titleId' in item ? [item.titleId] : []));
    // The external ids of the titles deleted on this page (most pages have none: no query then).
    const externalIds =
      deletedIds.length === 0
        ? new Map<number, number | null>()
        : await this.catalog.externalIds(mediaType, deletedIds);

    const cursor: Cursor = {
      userId,
      userCreatedAt,
      mediaType,
      position: hasMore ? page[page.length - 1].revision : upTo,
      // A page with more behind it keeps the chain's start, so that no page of the chain reaches
      // behind deletions purged since that start.
      issuedAt: hasMore ? (from?.issuedAt ?? now) : now,
    };
    return {
      changes: page.flatMap((item) => ('entry' in item ? [item.entry] : [])),
      deleted: deletedIds.map((id) => ({ id, external_id: externalIds.get(id) ?? null })),
      cursor: encodeCursor(key, cursor),
      has_more: hasMore,
    };
  }
}
