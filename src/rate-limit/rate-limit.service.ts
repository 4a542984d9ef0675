import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, RateWindow } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CounterStore, WindowCount } from '../counters/counter-store';

/** The two budgets of decisions §5: per user and per client address, each per endpoint row. */
export type RateLimitWindow = 'user' | 'ip';

export interface RateLimitDecision {
  /** `RateLimit-Limit`, `-Remaining`, `-Reset` of the window with the least left. */
  headers: Record<string, string>;
  /** Whole seconds until every exhausted window resets; null when the request may go on. */
  retryAfterSeconds: number | null;
  /** The limit of an exhausted window, for the 429's detail; null when none is exhausted. */
  exceededLimit: number | null;
}

interface WindowState {
  limit: number;
  remaining: number;
  resetSeconds: number;
  blocked: boolean;
}

/**
 * The rate limits of decisions §5 on fixed windows of the shared CounterStore (memory or Redis).
 * It owns the counter keys: `hit` counts a request that reached step 6 of §2, `peek` reads the
 * client address's window for responses refused before it, which are never counted.
 */
@Injectable()
export class RateLimitService {
  constructor(
    private readonly counters: CounterStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The counter of one window: endpoint row, window, who is counted (user id or address). */
  static key(endpoint: string, window: RateLimitWindow, who: string | number): string {
    return `rate:${endpoint}:${window}:${who}`;
  }

  async hit(endpoint: string, userId: number, ip: string): Promise<RateLimitDecision> {
    const { user, ip: address } = this.config.rateLimit;
    const [userCount, ipCount] = await Promise.all([
      this.counters.hit(RateLimitService.key(endpoint, 'user', userId), user.windowSeconds * 1000),
      this.counters.hit(RateLimitService.key(endpoint, 'ip', ip), address.windowSeconds * 1000),
    ]);
    const windows = [stateOf(user, userCount), stateOf(address, ipCount)];
    const blocked = windows.filter((window) => window.blocked);
    return {
      headers: headersOf(tightest(windows)),
      retryAfterSeconds:
        blocked.length === 0 ? null : Math.max(...blocked.map((w) => w.resetSeconds)),
      exceededLimit: blocked.length === 0 ? null : blocked[0].limit,
    };
  }

  /** The address's window as it stands, without a hit: no user is known before step 3. */
  async peek(endpoint: string, ip: string): Promise<Record<string, string>> {
    const window = this.config.rateLimit.ip;
    const count = await this.counters.peek(RateLimitService.key(endpoint, 'ip', ip));
    return headersOf(
      count
        ? stateOf(window, count)
        : {
            limit: window.limit,
            remaining: window.limit,
            resetSeconds: window.windowSeconds,
            blocked: false,
          },
    );
  }
}

function stateOf(window: RateWindow, { count, resetMs }: WindowCount): WindowState {
  return {
    limit: window.limit,
    remaining: Math.max(0, window.limit - count),
    resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    blocked: count > window.limit,
  };
}

/** The window with the least left; of two equally low, the one that resets later. */
function tightest(windows: WindowState[]): WindowState {
  return windows.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds)
      ? b
      : a,
  );
}

function headersOf(window: WindowState): Record<string, string> {
  return {
    'RateLimit-Limit': String(window.limit),
    'RateLimit-Remaining': String(window.remaining),
    'RateLimit-Reset': String(window.resetSeconds),
  };
}
