import type { EntityManager } from 'typeorm';
import type { MediaType } from '../media-types/media-type';
import { ProblemException } from '../common/problem';
import { nowToTheSecond } from '../common/timestamps';
import type { UsersService } from '../users/users.service';
import type { PutRatingDto } from './dto/entry-classes';
import type { RatingChange, WriteSource } from './rating-change';
import { entryAfterPut, foundTitle } from './rating-rules';
import type { RatingWriteHooks } from './rating-write-hooks';
import { changesPublicView } from '../media-types/public-view.policy';
import { ListVersionsRepository } from './list-versions.repository';
import type { RatingView } from '../media-types';
import {
  RatingsRepository,
  TitleKey,
  TitleWithEntryRow,
  viewOfRow,
  viewOfWritten,
} from './ratings.repository';

/** The user a batch of writes is made for, when the caller knows it: a request's principal. */
export interface WriteAuthor {
  id: number;
  /** Null when the caller does not know it (a scrobble): hooks that need it read it then. */
  name: string | null;
  /** The name of the OAuth client the request's token was issued to, if any (RatingChange.client). */
  clientName?: string | null;
}

/** What a write of another module than the API's tells put() besides the body. */
export interface PutOptions {
  /** The write's client when it differs from the batch's (a scrobbler's kind, per write). */
  client?: string;
  /**
   * The title and entry current() read in this transaction: saves reading them again (nothing
   * can have changed them since, the list's lock is held).
   */
  current?: TitleWithEntryRow;
  /**
   * The write starts a rewatch (reread) and finishes it at once (a scrobbled movie watched again):
   * `is_rewatching` stays false, `times_rewatched` rises, and the history opens and closes a viewing.
   */
  rewatchedAtOnce?: boolean;
}

/**
 * Writes entries inside one transaction (see RatingsService.inWriteTransaction). Each write:
 * locks the user's list (list version, then the revision counter of the media type), reads the
 * title and the entry under that lock, applies the rules, writes the entry row, runs the hooks.
 * A write that throws (404, 400, a hook) leaves the transaction to the caller: uncaught, it rolls
 * everything back; caught, the writes before it stand. `finish()` ends the batch, in the same
 * transaction: the public versions of the lists whose public view changed move once each.
 */
export class RatingWriter {
  /** The writes made so far, in order: the events sent after the commit. */
  readonly changes: RatingChange[] = [];
  private readonly versionBumped = new Set<number>();
  /** Users whose list this transaction holds (holdList) without having moved its version. */
  private readonly held = new Set<number>();
  /** `userId:mediaType` of the lists whose public view a write of this batch changed. */
  private readonly publicChanged = new Map<string, { userId: number; mediaType: MediaType }>();

  constructor(
    private readonly manager: EntityManager,
    private readonly repository: RatingsRepository,
    private readonly versions: ListVersionsRepository,
    private readonly users: UsersService,
    private readonly hooks: RatingWriteHooks,
    private readonly author: WriteAuthor | null = null,
    private readonly source: WriteSource = 'api',
  ) {}

  /**
   * The title and the user's entry as they stand, read under the lock of the user's lists taken
   * without moving their version: for a caller that decides whether to write at all (a scrobble
   * whose outcome may write nothing). Undefined when the catalog has no such title.
   */
  async current(
    userId: number,
    mediaType: MediaType,
    key: TitleKey,
  ): Promise<{ title: TitleWithEntryRow; entry: RatingView | null } | undefined> {
    if (!this.versionBumped.has(userId) && !this.held.has(userId)) {
      await this.users.holdList(userId, this.manager);
      this.held.add(userId);
    }
    const row = await this.repository.titleWithEntry(userId, mediaType, key, this.manager);
    if (!row) return undefined;
    return { title: row, entry: row.entry_id === null ? null : viewOfRow(mediaType, row) };
  }

  /**
   * Creates or updates the user's entry, with the same rules as PUT; returns the write.
   */
  async put(
    userId: number,
    mediaType: MediaType,
    key: TitleKey,
    body: PutRatingDto,
    { client, current, rewatchedAtOnce = false }: PutOptions = {},
  ): Promise<RatingChange> {
    const revision = await this.lock(userId, mediaType);
    const row =
      current && this.held.has(userId)
        ? current
        : foundTitle(
            await this.repository.titleWithEntry(userId, mediaType, key, this.manager),
            mediaType,
            key,
          );
    const fields = entryAfterPut(mediaType, row, body);
    const now = nowToTheSecond();
    const created = row.entry_id === null;
    const touch = created || body.touch === true;
    await this.repository.upsertEntry(this.manager, {
      userId,
      mediaType,
      titleId: row.id,
      fields,
      now,
      touch,
      revision,
    });
    const entry = viewOfWritten(
      mediaType,
      row,
      fields,
      created ? now : row.created_at,
      touch ? now : row.updated_at,
    );
    const previous = created ? null : viewOfRow(mediaType, row);
    if (changesPublicView(previous, entry)) {
      this.publicViewChanged(userId, mediaType);
    }
    return this.record(
      userId,
      mediaType,
      row,
      {
        kind: created ? 'created' : 'updated',
        revision,
        entry,
        previous,
        body,
        at: now,
        ...(rewatchedAtOnce ? { rewatchedAtOnce } : {}),
      },
      client,
    );
  }

  /** Deletes the user's entry (404 when the title is unknown or has no entry); returns the write. */
  async remove(userId: number, mediaType: MediaType, key: TitleKey): Promise<RatingChange> {
    const revision = await this.lock(userId, mediaType);
    const row = foundTitle(
      await this.repository.titleWithEntry(userId, mediaType, key, this.manager),
      mediaType,
      key,
    );
    if (row.entry_id === null) {
      throw ProblemException.notFound(`You have no rating entry for ${mediaType} ${row.id}`);
    }
    await this.repository.deleteEntry(this.manager, row.entry_id);
    const previous = viewOfRow(mediaType, row);
    if (changesPublicView(previous, null)) this.publicViewChanged(userId, mediaType);
    return this.record(userId, mediaType, row, {
      kind: 'deleted',
      revision,
      entry: null,
      previous,
      body: null,
      at: nowToTheSecond(),
    });
  }

  /**
   * Deletes every entry of the user's list, each as remove() does; returns how many. The entries
   * are read under the list's lock, in this transaction: none written meanwhile is left behind.
   */
  async removeAll(userId: number, mediaType: MediaType): Promise<number> {
    await this.lockList(userId);
    const titleIds = await this.repository.entryTitleIds(this.manager, userId, mediaType);
    for (const id of titleIds) await this.remove(userId, mediaType, { id, byExternalId: false });
    return titleIds.length;
  }

  /**
   * Runs `work` in this batch's transaction: writes of other modules (to their own tables, through
   * their own services) that must commit or roll back with the entry writes, such as erasing a user.
   */
  alongside<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return work(this.manager);
  }

  /** Moves the public version of every list whose public view a write of the batch changed. */
  async finish(): Promise<void> {
    for (const { userId, mediaType } of this.publicChanged.values()) {
      await this.versions.bumpPublicVersion(this.manager, userId, mediaType);
    }
    this.publicChanged.clear();
  }

  private nameOf(userId: number): string | null {
    return this.author?.id === userId ? this.author.name : null;
  }

  /** The OAuth client's name for `api` writes, the scrobbler's kind for `scrobble` (contract §20). */
  private clientOf(userId: number): string | null {
    if (this.source === 'import' || this.author?.id !== userId) return null;
    return this.author.clientName ?? null;
  }

  private publicViewChanged(userId: number, mediaType: MediaType): void {
    this.publicChanged.set(`${userId}:${mediaType}`, { userId, mediaType });
  }

  /**
   * The list version first: its row lock serialises all of the user's writes (and, taken before
   * any entry row refers to the user, keeps two writers of one user from deadlocking).
   */
  private async lock(userId: number, mediaType: MediaType): Promise<number> {
    await this.lockList(userId);
    return this.versions.nextRevision(this.manager, userId, mediaType);
  }

  /**
   * Takes the lock of the user's lists for this transaction (every write does first): a caller
   * that must check something before a write, and find it unchanged by another write, calls it.
   */
  async lockList(userId: number): Promise<void> {
    if (this.versionBumped.has(userId)) return;
    await this.users.listChanged(userId, this.manager);
    this.versionBumped.add(userId);
  }

  /** The write of the user's entry of the title `row`: its hooks run, it is kept for the events. */
  private async record(
    userId: number,
    mediaType: MediaType,
    row: { id: number; external_id: number | null },
    write: Pick<RatingChange, 'kind' | 'revision' | 'entry' | 'previous' | 'body' | 'at'> &
      Partial<Pick<RatingChange, 'rewatchedAtOnce'>>,
    client?: string,
  ): Promise<RatingChange> {
    const change: RatingChange = {
      ...write,
      userId,
      userName: this.nameOf(userId),
      mediaType,
      titleId: row.id,
      externalId: row.external_id,
      source: this.source,
      client: client ?? this.clientOf(userId),
    };
    await this.hooks.run(this.manager, change);
    this.changes.push(change);
    return change;
  }
}
