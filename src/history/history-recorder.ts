import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { MediaType } from '../media-types/media-type';
import type { RatingView } from '../media-types';
import type { RatingChange } from '../ratings/rating-change';
import { factsOf, HISTORY_FIELDS, progressValue, repeatingOf, scoreOf } from './history-facts';
import { HistoryRepository, type StoredEvent } from './history.repository';
import { derivedViewing, viewingsAfterWrite } from './viewing-rules';

/**
 * The members an event records (contract §20): status, the media type's progress fields and the
 * score, each only when the write changed it; on creation each, progress and score when not 0.
 */
export function memberChanges(
  mediaType: MediaType,
  previous: RatingView | null,
  next: RatingView,
): StoredEvent['changes'] {
  const changes: StoredEvent['changes'] = {};
  if (previous === null || previous.status !== next.status) {
    changes.status = { from: previous?.status ?? null, to: next.status };
  }
  const counts: [string, (entry: RatingView) => number][] = [
    ...HISTORY_FIELDS[mediaType].progress.map(
      (field) =>
        [field, (entry: RatingView) => progressValue(entry, field)] as [
          string,
          (entry: RatingView) => number,
        ],
    ),
    ['score', scoreOf],
  ];
  for (const [member, valueOf] of counts) {
    const to = valueOf(next);
    const from = previous === null ? null : valueOf(previous);
    if (previous === null ? to !== 0 : from !== to) changes[member] = { from, to };
  }
  return changes;
}

/**
 * The history module's hook on the entry write path (RatingWriteHooks): inside the write's
 * transaction, under the list's lock, it records the write's event and moves the title's
 * viewings; a deletion forgets both.
 */
@Injectable()
export class HistoryRecorder {
  constructor(private readonly repository: HistoryRepository) {}

  async record(em: EntityManager, change: RatingChange): Promise<void> {
    const { userId, mediaType, titleId } = change;
    if (change.kind === 'deleted' || change.entry === null) {
      await this.repository.forgetTitle(em, userId, mediaType, titleId);
      return;
    }
    const { entry: next, previous } = change;
    const changes = memberChanges(mediaType, previous, next);
    const isEvent = Object.keys(changes).length > 0;
    const repeatingMoved =
      previous !== null && repeatingOf(mediaType, previous) !== repeatingOf(mediaType, next);
    if (!isEvent && !repeatingMoved && !change.rewatchedAtOnce) return;

    const now = new Date();
    const before = previous === null ? null : factsOf(mediaType, previous);
    const stored = await this.repository.latestViewing(em, userId, mediaType, titleId);
    if (change.source === 'import' && stored === null) {
      // An import describes the past: an entry it writes that has no viewing gets the one its
      // fields call for, dated from them (start_date or created_at, end_date or updated_at).
      const derived = derivedViewing(factsOf(mediaType, next));
      if (derived) await this.repository.saveViewing(em, userId, mediaType, titleId, derived, true);
      if (isEvent) {
        await this.insertEvent(em, change, now, derived?.number ?? null, changes, false);
      }
      return;
    }
    // An entry of version 1.1 (or an import) gets the viewing its fields call for first.
    const latest = stored ?? (before === null ? null : derivedViewing(before));
    const { changed, eventViewing } = viewingsAfterWrite(
      latest,
      before,
      factsOf(mediaType, next),
      change.body ?? {},
      now,
      change.rewatchedAtOnce === true,
    );
    const toSave = new Map(changed.map((viewing) => [viewing.number, viewing]));
    if (stored === null && latest !== null && !toSave.has(latest.number)) {
      toSave.set(latest.number, latest);
    }
    const storedNumber = stored?.number ?? 0;
    for (const viewing of [...toSave.values()].sort((a, b) => a.number - b.number)) {
      await this.repository.saveViewing(
        em,
        userId,
        mediaType,
        titleId,
        viewing,
        viewing.number > storedNumber,
      );
    }
    // Rule 1 opened a viewing: progress restarts from 0 (the rise statistics count, §22).
    const restarted =
      change.rewatchedAtOnce === true || (!before?.repeating && factsOf(mediaType, next).repeating);
    if (isEvent) await this.insertEvent(em, change, now, eventViewing, changes, restarted);
  }

  private insertEvent(
    em: EntityManager,
    change: RatingChange,
    now: Date,
    viewing: number | null,
    changes: StoredEvent['changes'],
    restarted: boolean,
  ): Promise<void> {
    return this.repository.insertEvent(em, change.userId, change.mediaType, {
      id: change.revision,
      titleId: change.titleId,
      atMs: now.getTime(),
      source: change.source,
      client: change.client,
      viewing,
      changes,
      restarted,
    });
  }

  /** Forgets every event and viewing of the user, in the caller's transaction. */
  forgetUser(em: EntityManager, userId: number): Promise<void> {
    return this.repository.forgetUser(em, userId);
  }
}
