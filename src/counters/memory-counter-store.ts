import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { CounterStore, WindowCount } from './counter-store';

interface Slot {
  count: number;
  expiresAt: number;
}

const SWEEP_INTERVAL_MS = 10_000;
const MAX_SLOTS = 500_000;

/**
 * Fixed windows in a Map: O(1) per hit, unlike the throttler's stock storage, which keeps every hit
 * and slows down as they pile up (see stack-facts). Expired slots are swept, and the oldest ones are
 * dropped past MAX_SLOTS, so a flood of distinct keys cannot grow memory without bound.
 */
@Injectable()
export class MemoryCounterStore extends CounterStore implements OnModuleDestroy {
  private readonly slots = new Map<string, Slot>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    let slot = this.live(key, now);
    if (!slot) {
      slot = { count: 0, expiresAt: now + windowMs };
      this.store(key, slot);
    }
    slot.count += 1;
    return Promise.resolve({ count: slot.count, resetMs: slot.expiresAt - now });
  }

  peek(key: string): Promise<WindowCount | null> {
    const now = Date.now();
    const slot = this.live(key, now);
    return Promise.resolve(slot ? { count: slot.count, resetMs: slot.expiresAt - now } : null);
  }

  raiseFlag(key: string, ms: number): Promise<void> {
    this.store(key, { count: 1, expiresAt: Date.now() + ms });
    return Promise.resolve();
  }

  flagRemainingMs(key: string): Promise<number> {
    const now = Date.now();
    const slot = this.live(key, now);
    return Promise.resolve(slot ? slot.expiresAt - now : 0);
  }

  forget(key: string): Promise<void> {
    this.slots.delete(key);
    return Promise.resolve();
  }

  isReachable(): Promise<null> {
    return Promise.resolve(null);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  private live(key: string, now: number): Slot | undefined {
    const slot = this.slots.get(key);
    if (slot && slot.expiresAt <= now) {
      this.slots.delete(key);
      return undefined;
    }
    return slot;
  }

  private store(key: string, slot: Slot): void {
    this.slots.delete(key);
    this.slots.set(key, slot);
    if (this.slots.size > MAX_SLOTS) {
      this.sweep();
      for (const oldest of this.slots.keys()) {
        if (this.slots.size <= MAX_SLOTS) break;
        this.slots.delete(oldest);
      }
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, slot] of this.slots) {
      if (slot.expiresAt <= now) this.slots.delete(key);
    }
  }
}
