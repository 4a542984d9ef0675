import { Injectable } from '@nestjs/common';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { CounterStore, WindowCount } from '../counters/counter-store';

/** The two budgets of contract §5: per user and per client address, each per endpoint row. */
export const RATE_LIMIT_WINDOWS = ['user', 'ip'] as const;
export type RateLimitWindow = (typeof RATE_LIMIT_WINDOWS)[number];

interface RateWindow {
  limit: number;
  windowSeconds: number;
}

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
 * The rate limits of contract §5: the named throttlers of @nestjs/throttler (rate-limit.module)
 * on fixed windows of the shared CounterStore (memory or Redis). It owns the counter keys: `hit`
 * counts a request that reached step 6 of §2, `peek` reads the client address's window for
 * responses refused before it, which are never counted.
 */
@Injectable()
export class RateLimitService {
  private readonly windows: Record<RateLimitWindow, RateWindow>;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly counters: CounterStore,
  ) {
    this.windows = windowsOf(options);
  }

  /** The counter of one window: endpoint row, window, who is counted (user id or address). */
  static key(endpoint: string, window: RateLimitWindow, who: string | number): string {
    return `rate:${endpoint}:${window}:${who}`;
  }

  async hit(endpoint: string, userId: number, ip: string): Promise<RateLimitDecision> {
    const { user, ip: address } = this.windows;
    const [userCount, ipCount] = await Promise.all([
      this.count(RateLimitService.key(endpoint, 'user', userId), 'user', user),
      this.count(RateLimitService.key(endpoint, 'ip', ip), 'ip', address),
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
    const window = this.windows.ip;
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

  private async count(
    key: string,
    name: RateLimitWindow,
    window: RateWindow,
  ): Promise<WindowCount> {
    const record = await this.storage.increment(
      key,
      window.windowSeconds * 1000,
      window.limit,
      0,
      name,
    );
    return { count: record.totalHits, resetMs: record.timeToExpire * 1000 };
  }
}

function windowsOf(options: ThrottlerModuleOptions): Record<RateLimitWindow, RateWindow> {
  const throttlers = Array.isArray(options) ? options : options.throttlers;
  const windowOf = (name: RateLimitWindow): RateWindow => {
    const throttler = throttlers.find((candidate) => candidate.name === name);
    if (typeof throttler?.limit !== 'number' || typeof throttler.ttl !== 'number')
      throw new Error(`The throttler "${name}" needs a fixed limit and ttl`);
    return { limit: throttler.limit, windowSeconds: throttler.ttl / 1000 };
  };
  return { user: windowOf('user'), ip: windowOf('ip') };
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
