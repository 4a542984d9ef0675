import type { RatingStatus } from '../media-types/rating-status';
import type { ViewingState } from './history-viewing.entity';

/** A viewing as stored and shown (contract §20); `closedAtMs` is internal. */
export interface Viewing {
  number: number;
  state: ViewingState;
  startedAt: string;
  finishedAt: string | null;
  closedAtMs: number | null;
  score: number | null;
  progress: number;
}

/** What the viewing rules read of an entry. */
export interface EntryFacts {
  status: RatingStatus;
  /** Progress as contract §20 defines it (the first progress field that is not 0). */
  progress: number;
  /** public_rating * 10 + public_fraction. */
  score: number;
  /** is_rewatching / is_rereading. */
  repeating: boolean;
  startDate: string | null;
  endDate: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The dates a write's body gave (undefined: not given; null: cleared). */
export interface GivenDates {
  start_date?: string | null;
  end_date?: string | null;
}

const LATE_SCORE_MS = 24 * 3600 * 1000;

const atMidnight = (date: string) => `${date}T00:00:00Z`;

/** Whether rules 1-3, applied to the creation of an entry with these fields, open a viewing. */
function wouldHaveViewing(facts: EntryFacts): boolean {
  return (
    facts.repeating ||
    facts.status === 'ongoing' ||
    facts.status === 'completed' ||
    facts.progress > 0
  );
}

/**
 * The viewing of an entry written before version 1.2 (or by an import) that has none, from its
 * current fields (contract §20, last rule of Viewings); null when it gets none.
 */
export function derivedViewing(facts: EntryFacts): Viewing | null {
  if (!wouldHaveViewing(facts)) return null;
  const state: ViewingState =
    facts.status === 'completed' ? 'finished' : facts.status === 'dropped' ? 'abandoned' : 'open';
  const closed = state !== 'open';
  return {
    number: 1,
    state,
    startedAt: facts.startDate !== null ? atMidnight(facts.startDate) : facts.createdAt,
    finishedAt: closed
      ? facts.endDate !== null
        ? atMidnight(facts.endDate)
        : facts.updatedAt
      : null,
    closedAtMs: closed ? Date.parse(facts.updatedAt) : null,
    score: closed && facts.score !== 0 ? facts.score : null,
    progress: facts.progress,
  };
}

/** The viewings a write changed or made, and the number its event belongs to. */
export interface ViewingsAfterWrite {
  changed: Viewing[];
  eventViewing: number | null;
}

/**
 * Rules 1-3 of contract §20, in order, for one write: `latest` is the entry's latest viewing
 * before it (with the derived one for an entry that had none), `previous` null on creation.
 */
export function viewingsAfterWrite(
  latest: Viewing | null,
  previous: EntryFacts | null,
  next: EntryFacts,
  given: GivenDates,
  now: Date,
  rewatchedAtOnce = false,
): ViewingsAfterWrite {
  const commitTime = now.toISOString();
  const startedAt =
    typeof given.start_date === 'string' ? atMidnight(given.start_date) : commitTime;
  const finishedAt = typeof given.end_date === 'string' ? atMidnight(given.end_date) : commitTime;
  const changed = new Map<number, Viewing>();
  let last = latest ? { ...latest } : null;
  let open = last?.state === 'open' ? last : null;
  let closedHere = false;

  const close = (viewing: Viewing, state: ViewingState) => {
    Object.assign(viewing, {
      state,
      finishedAt,
      closedAtMs: now.getTime(),
      score: next.score !== 0 ? next.score : null,
    });
    changed.set(viewing.number, viewing);
    open = null;
    closedHere = true;
  };
  const openNext = () => {
    const viewing: Viewing = {
      number: (last?.number ?? 0) + 1,
      state: 'open',
      startedAt,
      finishedAt: null,
      closedAtMs: null,
      score: null,
      progress: next.progress,
    };
    changed.set(viewing.number, viewing);
    last = open = viewing;
  };

  const previousStatus = previous?.status ?? null;
  const wasRepeating = previous?.repeating ?? false;
  const previousProgress = previous?.progress ?? 0;

  // 1. Rewatch (one that also finished in this write turned the flag on and off again).
  if ((!wasRepeating && next.repeating) || rewatchedAtOnce) {
    if (open) close(open, previousStatus === 'completed' ? 'finished' : 'abandoned');
    openNext();
  }
  // 2. Start.
  const startsStatus =
    (next.status === 'ongoing' || next.status === 'completed') && next.status !== previousStatus;
  if (!open && (startsStatus || next.progress > previousProgress)) openNext();
  // 3. Finish.
  const current = open;
  if (current) {
    if (next.progress > current.progress) {
      current.progress = next.progress;
      changed.set(current.number, current);
    }
    if (
      (next.status === 'completed' && previousStatus !== 'completed') ||
      (wasRepeating && !next.repeating) ||
      rewatchedAtOnce
    ) {
      close(current, 'finished');
    } else if (next.status === 'dropped' && previousStatus !== 'dropped') {
      close(current, 'abandoned');
    }
  }
  // The late score: a rating sent shortly after the write that closed the latest viewing.
  const finished = last;
  if (
    !closedHere &&
    previous !== null &&
    previous.score !== next.score &&
    finished !== null &&
    finished.state !== 'open' &&
    finished.closedAtMs !== null &&
    now.getTime() - finished.closedAtMs <= LATE_SCORE_MS
  ) {
    finished.score = next.score !== 0 ? next.score : null;
    changed.set(finished.number, finished);
  }
  const belongsTo = open ?? last;
  return { changed: [...changed.values()], eventViewing: belongsTo?.number ?? null };
}
