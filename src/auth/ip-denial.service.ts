import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CounterStore } from '../counters/counter-store';
import { IpDenialRecords } from './ip-denial-records';

/** Where an address stands after a rejected User-Agent. */
export type RejectionOutcome =
  /** Denial is off (UA_DENY_THRESHOLD=0). */
  | { kind: 'off' }
  /** `remaining` more rejections within the window deny the address. */
  | { kind: 'counting'; remaining: number; windowSeconds: number; denySeconds: number }
  /** This rejection denied the address for `denySeconds`. */
  | { kind: 'denied'; denySeconds: number };

/**
 * Temporary denial of a client address that keeps sending rejected User-Agents (contract §4).
 * The counting lives in the CounterStore (with Redis every instance denies the same addresses).
 * Each denial is also recorded in the database as it starts, so that `denials list` sees it and
 * `denials lift` ends it on every instance, Redis or not: an address the store says is denied is
 * confirmed against that record, which costs nothing for the addresses that are not.
 */
@Injectable()
export class IpDenialService {
  private readonly logger = new Logger(IpDenialService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: CounterStore,
    private readonly records: IpDenialRecords,
  ) {}

  /** Milliseconds left on the address's denial; 0 when it is not denied. */
  async deniedForMs(ip: string): Promise<number> {
    if (this.config.userAgent.denyThreshold === 0) return 0;
    const remainingMs = await this.counters.flagRemainingMs(`deny:${ip}`);
    if (remainingMs <= 0) return 0;
    let until: number | null;
    try {
      until = await this.records.deniedUntil(ip);
    } catch {
      // The database does not answer: the store's word stands.
      return remainingMs;
    }
    if (until !== null && until > Date.now()) return remainingMs;
    // Lifted (`denials lift`): the address starts afresh, its past rejections forgotten.
    await this.counters.forget(`deny:${ip}`);
    await this.counters.forget(`ua-rejections:${ip}`);
    this.logger.log(`Address ${ip} no longer denied: the denial was lifted`);
    return 0;
  }

  async recordRejectedUserAgent(ip: string): Promise<RejectionOutcome> {
    const { denyThreshold, denyWindowSeconds, denySeconds } = this.config.userAgent;
    if (denyThreshold === 0) return { kind: 'off' };
    const { count } = await this.counters.hit(`ua-rejections:${ip}`, denyWindowSeconds * 1000);
    if (count < denyThreshold) {
      return {
        kind: 'counting',
        remaining: denyThreshold - count,
        windowSeconds: denyWindowSeconds,
        denySeconds,
      };
    }
    const now = Date.now();
    const until = now + denySeconds * 1000;
    // Recorded before the flag goes up: the guard reads a flag without a record as lifted.
    try {
      await this.records.record(ip, now, until);
    } catch (error) {
      this.logger.error(`Denial of ${ip} not recorded: ${(error as Error).message}`);
    }
    await this.counters.raiseFlag(`deny:${ip}`, denySeconds * 1000);
    this.logger.warn(
      `Address ${ip} denied until ${new Date(until).toISOString()}: ${count} rejected User-Agents within ${denyWindowSeconds} s`,
    );
    return { kind: 'denied', denySeconds };
  }
}
