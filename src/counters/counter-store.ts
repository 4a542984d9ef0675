export interface WindowCount {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/**
 * Short-lived counters and flags shared by the rate limits and the IP denial. In memory for one
 * instance, in Redis when several instances must share them.
 */
export abstract class CounterStore {
  /** Adds one hit to the fixed window `key` of `windowMs` and returns the window's state. */
  abstract hit(key: string, windowMs: number): Promise<WindowCount>;

  /** The fixed window `key` as it stands, without a hit; null when it has none open. */
  abstract peek(key: string): Promise<WindowCount | null>;

  /** Raises a flag that lowers itself after `ms`. */
  abstract raiseFlag(key: string, ms: number): Promise<void>;

  /** Milliseconds until the flag lowers; 0 when it is down. */
  abstract flagRemainingMs(key: string): Promise<number>;

  /** Forgets the window or flag `key`, as if it had never been hit or raised. */
  abstract forget(key: string): Promise<void>;

  /** Whether the backing store answers; `null` when there is none to ask (memory). */
  abstract isReachable(): Promise<boolean | null>;
}
