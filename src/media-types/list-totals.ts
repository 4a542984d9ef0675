/** Sums over one media type of a user's entries: the inputs of the profile statistics (§8). */
export interface ListTotals {
  /** The media type's name. */
  media_type: string;
  ongoing: string | number;
  completed: string | number;
  on_hold: string | number;
  dropped: string | number;
  bookmark: string | number;
  score_sum: string | number;
  scored: string | number;
  episodes: string | number;
  chapters: string | number;
  volumes: string | number;
  repeats: string | number;
  episode_minutes: string | number;
}
