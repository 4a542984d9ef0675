import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { emitDomainEvent } from '../common/domain-events';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { MediaType } from '../media-types/media-type';
import { ProblemException } from '../common/problem';
import { runTransaction } from '../database/transactions';
import { UsersService } from '../users/users.service';
import type { PutRatingDto } from './dto/entry-classes';
import { RATING_CHANGED_EVENT, RatingChange, type WriteSource } from './rating-change';
import { RatingRevision } from './rating-revision.entity';
import { foundTitle } from './rating-rules';
import { RatingWriteHooks } from './rating-write-hooks';
import { RatingWriter, type WriteAuthor } from './rating-writer';
import type { ListOptions, ListPage } from './list-options';
import type { EntryView, EntryViewOf } from '../media-types';
import type { ListTotals } from '../media-types/list-totals';
import { ListVersionsRepository, type ListState } from './list-versions.repository';
import {
  RatingsRepository,
  RatingViewOf,
  TitleKey,
  TitleWithEntryRow,
  viewOfRow,
} from './ratings.repository';
import type { TitleRef } from './title-ref';

export type { RatingViewOf } from './ratings.repository';

@Injectable()
export class RatingsService {
  private readonly logger = new Logger(RatingsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: RatingsRepository,
    private readonly versions: ListVersionsRepository,
    private readonly users: UsersService,
    private readonly hooks: RatingWriteHooks,
    private readonly events: EventEmitter2,
  ) {}

  async getOne<M extends MediaType>(
    userId: number,
    mediaType: M,
    ref: TitleRef,
  ): Promise<RatingViewOf<M>[]> {
    const key = { id: ref.id, byExternalId: ref.useExternalIdQuery ?? false };
    const row = foundTitle(
      await this.repository.titleWithEntry(userId, mediaType, key),
      mediaType,
      key,
    );
    return row.entry_id === null ? [] : [viewOfRow(mediaType, row)];
  }

  /** Every entry of the media type, in title id order (contract §7). */
  getAll<M extends MediaType>(userId: number, mediaType: M): Promise<RatingViewOf<M>[]> {
    return this.repository.allEntries(userId, mediaType);
  }

  /**
   * GET all narrowed by its options (contract §11), in `view`: the owner's list, or the `public`
   * one of another user (contract §18), whose entries and fields public-view.policy decides.
   */
  getListed<M extends MediaType, V extends EntryView>(
    view: V,
    userId: number,
    mediaType: M,
    options: ListOptions,
  ): Promise<ListPage<EntryViewOf<M, V>>> {
    return this.repository.listedEntries(view, userId, mediaType, options);
  }

  /** The entries a MyAnimeList export writes, with their titles' counts (contract §13). */
  exportedEntries<M extends MediaType>(userId: number, mediaType: M) {
    return this.repository.exportedEntries(userId, mediaType);
  }

  /** Titles by external id, each with the user's entry if any: the look-ups of an import. */
  titlesWithEntriesByExternalId(
    userId: number,
    mediaType: MediaType,
    externalIds: number[],
  ): Promise<TitleWithEntryRow[]> {
    return this.repository.titlesWithEntriesByExternalId(userId, mediaType, externalIds);
  }

  /** The version of the public list: moves only when what others see of it changes. */
  publicVersion(userId: number, mediaType: MediaType): Promise<number> {
    return this.versions.publicVersion(userId, mediaType);
  }

  /** publicVersion of both media types: what the public profile's statistics depend on. */
  publicVersions(userId: number): Promise<Record<MediaType, number>> {
    return this.versions.publicVersions(userId);
  }

  /** The sums behind a profile (contract §8), over all entries or the visible ones only. */
  listTotals(
    userId: number,
    options: { visibleOnly: boolean; defaultEpisodeMinutes: number },
  ): Promise<ListTotals[]> {
    return this.repository.listTotals(userId, options);
  }

  /**
   * The catalog updated these titles, in its transaction (`manager`): the versions of every list
   * and profile that shows one move with it, and no other (contract §10). RatingsModule registers
   * it as a hook of the catalog's writes (TitleChangeHooks).
   */
  async titlesChanged(
    manager: EntityManager,
    mediaType: MediaType,
    titleIds: number[],
  ): Promise<void> {
    if (titleIds.length === 0) return;
    const holders = await this.versions.titlesChanged(manager, mediaType, titleIds);
    await this.users.listsChanged(holders, manager);
  }

  /** Where the list stands (its revision and catalog version); null when the user is gone. */
  listState(userId: number, mediaType: MediaType): Promise<ListState | null> {
    return this.versions.listState(userId, mediaType);
  }

  /**
   * The entries whose last write has a revision in (after, upTo], oldest write first: the
   * changes feed's page (contract §12).
   */
  writtenBetween<M extends MediaType>(
    userId: number,
    mediaType: M,
    after: number,
    upTo: number,
    limit: number,
  ): Promise<{ revision: number; entry: RatingViewOf<M> }[]> {
    return this.repository.writtenBetween(userId, mediaType, after, upTo, limit);
  }

  /**
   * Creates or updates the user's entry (contract §6) and returns it as GET shows it. One
   * transaction holds the entry row, the list version, the write's revision and the hooks.
   */
  async put<M extends MediaType>(
    user: WriteAuthor,
    mediaType: M,
    ref: TitleRef,
    body: PutRatingDto,
  ): Promise<RatingViewOf<M>> {
    const userId = user.id;
    const key = { id: ref.id, byExternalId: pickExternalIdFlag(ref, body) };
    const change = await this.inWriteTransaction(
      (writer) => writer.put(userId, mediaType, key, body),
      user,
    );
    return change.entry as RatingViewOf<M>;
  }

  async remove(user: WriteAuthor, mediaType: MediaType, ref: TitleRef): Promise<void> {
    const userId = user.id;
    const key = { id: ref.id, byExternalId: ref.useExternalIdQuery ?? false };
    await this.inWriteTransaction((writer) => writer.remove(userId, mediaType, key), user);
  }

  /**
   * Runs `work` in one transaction with a RatingWriter: the one write path of entries, for a
   * single PUT or DELETE and for batches (an import of thousands of entries is one call).
   *
   * - Each `writer.put` / `writer.remove` gets its own revision and runs the registered
   *   RatingWriteHooks inside the transaction, in order.
   * - They throw ProblemException (404, 400) before writing the entry: a batch may catch those
   *   and go on. Any other error must propagate; it rolls back every write of the call.
   * - When `work` has resolved, still in the transaction, the public versions of the lists whose
   *   public view changed move (contract §18), once per list.
   * - After the commit, one RATING_CHANGED_EVENT per write, in order (best effort).
   * - `work` must use only the writer (or the transaction it is given via hooks) and must not
   *   start another transaction.
   * - `author`, when the caller knows it (a request's principal), names the user in the writes'
   *   RatingChange, so that hooks need not read it, and the OAuth client of its token.
   * - `source` says what made the writes (RatingChange.source).
   */
  async inWriteTransaction<T>(
    work: (writer: RatingWriter) => Promise<T>,
    author: WriteAuthor | null = null,
    source: WriteSource = 'api',
  ): Promise<T> {
    let writer: RatingWriter | undefined;
    const result = await runTransaction(
      this.dataSource,
      async (manager) => {
        writer = new RatingWriter(
          manager,
          this.repository,
          this.versions,
          this.users,
          this.hooks,
          author,
          source,
        );
        const result = await work(writer);
        await writer.finish();
        return result;
      },
      { grouped: true },
    );
    for (const change of writer!.changes) this.emit(change);
    return result;
  }

  /**
   * Forgets the user's revision counters, in the caller's transaction (`manager`), once the
   * user's entries are gone (erasing the user).
   */
  async forgetUser(manager: EntityManager, userId: number): Promise<void> {
    await manager.delete(RatingRevision, { userId });
  }

  private emit(change: RatingChange): void {
    try {
      emitDomainEvent(this.events, RATING_CHANGED_EVENT, change);
    } catch (error) {
      this.logger.error(
        `A ${RATING_CHANGED_EVENT} listener failed: ${(error as Error).message}`,
        (error as Error).stack,
      );
    }
  }
}

function pickExternalIdFlag(ref: TitleRef, body: PutRatingDto): boolean {
  const fromQuery = ref.useExternalIdQuery;
  const fromBody = body.use_external_id;
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    throw ProblemException.validation([
      { field: 'use_external_id', message: 'contradicts the use_external_id query parameter' },
    ]);
  }
  return fromBody ?? fromQuery ?? false;
}

export type { TitleKey, TitleWithEntryRow };
