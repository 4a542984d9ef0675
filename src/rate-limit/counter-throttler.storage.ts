import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import { CounterStore } from '../counters/counter-store';

export const counterKey = (rateLimitKey: string) => `rate:${rateLimitKey}`;

/** The throttler's storage on fixed windows of the shared CounterStore (memory or Redis). */
@Injectable()
export class CounterThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly counters: CounterStore) {}

  async increment(key: string, ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    const { count, resetMs } = await this.counters.hit(counterKey(key), ttlMs);
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
