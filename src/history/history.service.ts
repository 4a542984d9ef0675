import { Injectable } from '@nestjs/common';
import type { MediaType } from '../media-types/media-type';
import { problemBody, ProblemException } from '../common/problem';
import type { PutRatingDto } from '../ratings/dto/entry-classes';
import type { RatingView } from '../media-types';
import type { WriteAuthor } from '../ratings/rating-writer';
import { RatingsService } from '../ratings/ratings.service';
import type { TitleRef } from '../ratings/title-ref';
import { SettingsService } from '../settings/settings.service';
import { UsersService } from '../users/users.service';
import { startOfDayMs } from '../settings/time-zone';
import { factsOf, HISTORY_FIELDS } from './history-facts';
import { ABOVE_EVERY_ID, beforeBound, DEFAULT_LIMIT, type HistoryOptions } from './history-options';
import { HistoryRepository, type EventView, type StoredEvent } from './history.repository';

export type { EventView };
import { derivedViewing, type Viewing } from './viewing-rules';

export interface ViewingView {
  number: number;
  started_at: string;
  finished_at: string | null;
  state: Viewing['state'];
  score: number | null;
  progress: number;
}

export interface EventPage {
  events: EventView[];
  hasMore: boolean;
}

function viewingView(viewing: Viewing): ViewingView {
  return {
    number: viewing.number,
    started_at: viewing.startedAt,
    finished_at: viewing.finishedAt,
    state: viewing.state,
    score: viewing.score,
    progress: viewing.progress,
  };
}

const notYourEvent = (mediaType: MediaType, titleId: number) =>
  ProblemException.notFound(`You have no such history event for ${mediaType} ${titleId}`);

/** History reads and repairs (contract §20); events are written by HistoryRecorder. */
@Injectable()
export class HistoryService {
  constructor(
    private readonly repository: HistoryRepository,
    private readonly ratings: RatingsService,
    private readonly settings: SettingsService,
    private readonly users: UsersService,
  ) {}

  /** The user's entry for the title (404 when the catalog has no such title), or null. */
  async entryOf(userId: number, mediaType: MediaType, ref: TitleRef): Promise<RatingView | null> {
    const [entry] = await this.ratings.getOne(userId, mediaType, ref);
    return entry ?? null;
  }

  /** A page of the list's events (or of one title's, `titleId`), newest first. */
  async events(
    userId: number,
    mediaType: MediaType,
    titleId: number | null,
    options: HistoryOptions,
    zone?: string | null,
  ): Promise<EventPage> {
    const limit = options.limit ?? DEFAULT_LIMIT;
    let fromMs: number | null = null;
    let toMs: number | null = null;
    const dayZone = zone ?? (await this.zoneOf(userId, options));
    if (dayZone !== null) {
      if (options.from !== null) fromMs = startOfDayMs(options.from, dayZone);
      if (options.to !== null) toMs = startOfDayMs(options.to, dayZone, 1);
    }
    const rows = await this.repository.events(userId, mediaType, {
      titleId,
      before: beforeBound(options),
      fromMs,
      toMs,
      limit: limit + 1,
    });
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    return { events: rows, hasMore };
  }

  /** One title's events: none when the user has no entry for it (404 for an unknown title). */
  async titleEvents(
    userId: number,
    mediaType: MediaType,
    ref: TitleRef,
    options: HistoryOptions,
    zone?: string | null,
  ): Promise<EventPage> {
    const entry = await this.entryOf(userId, mediaType, ref);
    if (!entry) return { events: [], hasMore: false };
    return this.events(userId, mediaType, entry.id, options, zone);
  }

  /** The time zone whose days a read's `from` and `to` are; null when it gives neither. */
  async zoneOf(userId: number, options: HistoryOptions): Promise<string | null> {
    if (options.from === null && options.to === null) return null;
    return this.settings.timeZoneOf(userId);
  }

  /**
   * What the user's history depends on, besides a read's options: the list version moves with
   * every write, every deleted event and every catalog update of a title the lists hold.
   */
  async version(userId: number): Promise<(string | number)[]> {
    const user = await this.users.findById(userId);
    if (!user) throw ProblemException.notFound('The user of this token no longer exists');
    return [user.createdAt.getTime(), user.listVersion];
  }

  async viewings(userId: number, mediaType: MediaType, ref: TitleRef): Promise<ViewingView[]> {
    const entry = await this.entryOf(userId, mediaType, ref);
    if (!entry) return [];
    const stored = await this.repository.viewings(userId, mediaType, entry.id);
    return this.viewingsOf(mediaType, entry, stored).map(viewingView);
  }

  /** Removes one event; the entry and its viewings stay (contract §20). */
  async deleteEvent(
    userId: number,
    mediaType: MediaType,
    ref: TitleRef,
    eventId: number | null,
  ): Promise<void> {
    const { entry } = await this.findEvent(userId, mediaType, ref, eventId);
    // The list's version moves with it: the statistics' activity counts events (contract §22).
    await this.repository.deleteEvent(userId, mediaType, entry.id, eventId!, (em) =>
      this.users.listChanged(userId, em),
    );
  }

  /**
   * Undoes the title's latest event through the one write path: each member back to its `from`,
   * or, for the event that created the entry, the entry deleted (contract §20).
   */
  async revert(
    user: WriteAuthor,
    mediaType: MediaType,
    ref: TitleRef,
    eventId: number | null,
  ): Promise<void> {
    const { entry, event } = await this.findEvent(user.id, mediaType, ref, eventId);
    const notLatest = (latest: number | null) =>
      new ProblemException(
        problemBody(
          409,
          `Event ${event.id} is not the latest event of ${mediaType} ${entry.id} (that is ${latest}): only the latest can be reverted`,
        ),
      );
    const latest = await this.repository.latestEventId(user.id, mediaType, entry.id);
    if (latest !== event.id) throw notLatest(latest);
    const key = { id: entry.id, byExternalId: false };
    const body: Record<string, unknown> = {
      status: event.changes.status?.from ?? entry.status,
    };
    for (const field of HISTORY_FIELDS[mediaType].progress) {
      const change = event.changes[field];
      if (change) body[field] = change.from;
    }
    const score = event.changes.score;
    if (score && score.from !== null) {
      const from = Number(score.from);
      body.public_rating = Math.floor(from / 10);
      body.public_fraction = from % 10;
    }
    await this.ratings.inWriteTransaction(async (writer) => {
      // Again under the list's lock: a write between the check above and this one may have
      // recorded a later event (the status the body keeps is the event's, for the same reason).
      await writer.lockList(user.id);
      const current = await writer.alongside((manager) =>
        this.repository.latestEventId(user.id, mediaType, entry.id, manager),
      );
      if (current !== event.id) throw notLatest(current);
      if (event.changes.status?.from === null) await writer.remove(user.id, mediaType, key);
      else await writer.put(user.id, mediaType, key, body as unknown as PutRatingDto);
    }, user);
  }

  /** What `users export` holds of the history of one media type (contract §20). */
  async exportOf(
    userId: number,
    mediaType: MediaType,
  ): Promise<{ history: EventView[]; viewings: { title_id: number; viewings: ViewingView[] }[] }> {
    const events = await this.repository.events(userId, mediaType, {
      titleId: null,
      before: null,
      fromMs: null,
      toMs: null,
      limit: ABOVE_EVERY_ID - 1,
    });
    const byTitle = new Map<number, Viewing[]>();
    for (const viewing of await this.repository.allViewings(userId, mediaType)) {
      const list = byTitle.get(viewing.titleId);
      if (list) list.push(viewing);
      else byTitle.set(viewing.titleId, [viewing]);
    }
    const entries = await this.ratings.getAll(userId, mediaType);
    return {
      history: events,
      viewings: entries.map((entry) => ({
        title_id: entry.id,
        viewings: this.viewingsOf(mediaType, entry, byTitle.get(entry.id) ?? []).map(viewingView),
      })),
    };
  }

  /** The stored viewings, or, for an entry that has none, the one its fields call for. */
  private viewingsOf(mediaType: MediaType, entry: RatingView, stored: Viewing[]): Viewing[] {
    if (stored.length > 0) return stored;
    const derived = derivedViewing(factsOf(mediaType, entry));
    return derived ? [derived] : [];
  }

  private async findEvent(
    userId: number,
    mediaType: MediaType,
    ref: TitleRef,
    eventId: number | null,
  ): Promise<{ entry: RatingView; event: StoredEvent }> {
    const entry = await this.entryOf(userId, mediaType, ref);
    if (!entry) throw notYourEvent(mediaType, ref.id);
    const event =
      eventId === null ? null : await this.repository.event(userId, mediaType, entry.id, eventId);
    if (!event) throw notYourEvent(mediaType, entry.id);
    return { entry, event };
  }
}
