import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import Redis, { type RedisOptions } from 'ioredis';
import type { SentinelTarget } from '../config/cluster-urls';
import { CounterStore, WindowCount } from './counter-store';

const WARN_EVERY_MS = 10_000;

// INCR and the first PEXPIRE in one step, so that concurrent instances never leave a window
// without an expiry or count a hit twice.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/**
 * Counters shared by every instance. When Redis does not answer, requests are still served: the
 * limits fail open, and a warning is logged (at most every 10 s).
 */
export class RedisCounterStore extends CounterStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RedisCounterStore.name);
  private readonly redis: Redis;
  private lastWarning = 0;

  /** `sentinel`: REDIS_URL named Sentinels (contract §23); ioredis follows them to the primary. */
  constructor(url: string, keyPrefix: string, sentinel: SentinelTarget | null = null) {
    super();
    const options: RedisOptions = {
      keyPrefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      // disconnect() waits this long for the socket's 'close' before destroying it. A socket that
      // already failed never closes again, so with Redis down the default (2 s) kept the process
      // alive that long after app.close().
      disconnectTimeout: 200,
    };
    this.redis = sentinel
      ? new Redis({
          ...options,
          sentinels: sentinel.sentinels,
          name: sentinel.name,
          password: sentinel.password ?? undefined,
          sentinelPassword: sentinel.password ?? undefined,
          // Within 10 s of a promotion the new primary counts (contract §23): retry often.
          retryStrategy: (attempt) => Math.min(attempt * 200, 1000),
          sentinelRetryStrategy: (attempt) => Math.min(attempt * 200, 1000),
          sentinelCommandTimeout: 500,
          failoverDetector: true,
          // A primary demoted by a failover answers READONLY: reconnect, asking the Sentinels again.
          reconnectOnError: (error) => error.message.includes('READONLY'),
        })
      : new Redis(url, options);
    this.redis.on('error', (error: Error) => this.warn(error));
  }

  /**
   * Waits (up to the connect timeout) for the first connection, so that the first requests are
   * counted; with Redis down the app still starts, failing open.
   */
  async onModuleInit(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, 2000);
      this.redis.once('ready', done);
    });
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    try {
      const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, key, windowMs)) as [
        number,
        number,
      ];
      return { count, resetMs: ttl };
    } catch (error) {
      this.warn(error);
      return { count: 0, resetMs: windowMs };
    }
  }

  async peek(key: string): Promise<WindowCount | null> {
    try {
      const [count, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
      return count === null || ttl <= 0 ? null : { count: Number(count), resetMs: ttl };
    } catch (error) {
      this.warn(error);
      return null;
    }
  }

  async raiseFlag(key: string, ms: number): Promise<void> {
    try {
      await this.redis.set(key, '1', 'PX', ms);
    } catch (error) {
      this.warn(error);
    }
  }

  async flagRemainingMs(key: string): Promise<number> {
    try {
      return Math.max(0, await this.redis.pttl(key));
    } catch (error) {
      this.warn(error);
      return 0;
    }
  }

  async forget(key: string): Promise<void> {
    try {
      await this.redis.del(key);
    } catch (error) {
      this.warn(error);
    }
  }

  async isReachable(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }

  private warn(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    const message = error instanceof Error ? error.message : String(error);
    this.logger.warn(`Redis unreachable, rate limits and IP denial fail open: ${message}`);
  }
}
