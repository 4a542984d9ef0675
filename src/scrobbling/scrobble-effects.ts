import type { MediaType } from '../media-types/media-type';
import type { RatingView } from '../media-types';

/** The media types payloads name (contract §21): a media type added later is not scrobbled. */
export type ScrobbledMediaType = Extract<MediaType, 'anime' | 'manga'>;

/** The entry fields a scrobble moves, per media type (contract §21): progress, repeat flag, count. */
export const SCROBBLE_FIELDS: Record<
  ScrobbledMediaType,
  { progress: string; repeating: string; times: string; count: 'episodes' | 'chapters' }
> = {
  anime: {
    progress: 'episodes_watched',
    repeating: 'is_rewatching',
    times: 'times_rewatched',
    count: 'episodes',
  },
  manga: {
    progress: 'chapters_read',
    repeating: 'is_rereading',
    times: 'times_reread',
    count: 'chapters',
  },
};

export type EffectOutcome = 'created' | 'updated' | 'unchanged' | 'ignored';

export interface EffectInput {
  mediaType: ScrobbledMediaType;
  /** The entry as GET shows it, null when there is none. */
  entry: RatingView | null;
  /** The title's known episode (manga: chapter) count, and its volume count. */
  count: number | null;
  volumes: number | null;
  /** The watched episode (manga: chapter) after the mapping's offset: at least 1. */
  episode: number;
  volume: number | null;
  rewatches: boolean;
  visible: boolean;
  /** The day the dates take, in the user's time zone: asked only when a date is set. */
  today: () => Promise<string>;
  /** A mapping's replay of a kept request: never starts a rewatch, never moves a reached entry. */
  replay: boolean;
}

/** What a watched episode does to the entry (contract §21 "Effect"): the PUT body, or none. */
export async function scrobbleEffect(input: EffectInput): Promise<{
  outcome: EffectOutcome;
  body: Record<string, unknown> | null;
  /** The body starts a rewatch and finishes it in the same write (E = 1 is the last episode). */
  rewatchedAtOnce?: boolean;
}> {
  const { progress, repeating, times } = SCROBBLE_FIELDS[input.mediaType];
  const { entry, count } = input;
  const episode = count !== null ? Math.min(input.episode, count) : input.episode;
  const reaches = count !== null && input.episode >= count;
  const volumes = (current: number): Record<string, number> =>
    input.mediaType === 'manga' && input.volume !== null && input.volume >= 1
      ? {
          volumes_read: Math.max(
            current,
            input.volumes !== null ? Math.min(input.volume, input.volumes) : input.volume,
          ),
        }
      : {};

  if (entry === null) {
    const today = await input.today();
    return {
      outcome: 'created',
      body: {
        status: reaches ? 'completed' : 'ongoing',
        [progress]: episode,
        ...volumes(0),
        start_date: today,
        ...(reaches ? { end_date: today } : {}),
        is_visible: input.visible,
      },
    };
  }
  const values = entry as unknown as Record<string, unknown>;
  const current = Number(values[progress] ?? 0);
  const rewatching = values[repeating] === true;
  if (entry.status === 'completed' && !rewatching) {
    if (input.replay) return { outcome: 'unchanged', body: null };
    if (!input.rewatches || input.episode !== 1) return { outcome: 'ignored', body: null };
    const finishes = count === 1;
    return {
      outcome: 'updated',
      body: {
        status: 'completed',
        [progress]: 1,
        [repeating]: !finishes,
        ...(finishes ? { [times]: Number(values[times] ?? 0) + 1 } : {}),
      },
      rewatchedAtOnce: finishes,
    };
  }
  if (input.replay && current >= input.episode) return { outcome: 'unchanged', body: null };
  const next: Record<string, unknown> = {
    status: entry.status === 'completed' && rewatching ? 'completed' : 'ongoing',
    [progress]: Math.max(current, episode),
    ...volumes(Number(values.volumes_read ?? 0)),
  };
  if (reaches) {
    next.status = 'completed';
    if (rewatching) {
      next[repeating] = false;
      next[times] = Number(values[times] ?? 0) + 1;
    } else if (entry.end_date === null) {
      next.end_date = await input.today();
    }
  }
  const moved = Object.keys(next).some((key) => next[key] !== values[key]);
  return moved ? { outcome: 'updated', body: next } : { outcome: 'unchanged', body: null };
}

/** The day of `ms` in the time zone, as YYYY-MM-DD. */
export function dayIn(zone: string, ms: number): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(ms));
}
