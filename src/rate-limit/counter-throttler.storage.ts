import type { ThrottlerStorage } from '@nestjs/throttler';
import { CounterStore } from '../counters/counter-store';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The throttler's storage on fixed windows of the shared CounterStore (memory or Redis), so that
 * the IP denial, the sign-in throttle and the rate limits share one store. `timeToExpire` is in
 * whole seconds, as @nestjs/throttler's own storage reports it.
 */
export class CounterThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly counters: CounterStore) {}

  async increment(key: string, ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    const { count, resetMs } = await this.counters.hit(key, ttlMs);
    const secondsLeft = Math.max(1, Math.ceil(resetMs / 1000));
    const isBlocked = count > limit;
    return {
      totalHits: count,
      timeToExpire: secondsLeft,
      isBlocked,
      timeToBlockExpire: isBlocked ? secondsLeft : 0,
    };
  }
}
