import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CounterStore } from '../counters/counter-store';

/**
 * Temporary denial of a client address that keeps sending rejected User-Agents (decisions §4).
 * State lives in the CounterStore, so with Redis every instance denies the same addresses.
 */
/** Where an address stands after a rejected User-Agent. */
export type RejectionOutcome =
  /** Denial is off (UA_DENY_THRESHOLD=0). */
  | { kind: 'off' }
  /** `remaining` more rejections within the window deny the address. */
  | { kind: 'counting'; remaining: number; windowSeconds: number; denySeconds: number }
  /** This rejection denied the address for `denySeconds`. */
  | { kind: 'denied'; denySeconds: number };

@Injectable()
export class IpDenialService {
  private readonly logger = new Logger(IpDenialService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: CounterStore,
  ) {}

  /** Milliseconds left on the address's denial; 0 when it is not denied. */
  deniedForMs(ip: string): Promise<number> {
    if (this.config.userAgent.denyThreshold === 0) return Promise.resolve(0);
    return this.counters.flagRemainingMs(`deny:${ip}`);
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
    await this.counters.raiseFlag(`deny:${ip}`, denySeconds * 1000);
    const until = new Date(Date.now() + denySeconds * 1000).toISOString();
    this.logger.warn(
      `Address ${ip} denied until ${until}: ${count} rejected User-Agents within ${denyWindowSeconds} s`,
    );
    return { kind: 'denied', denySeconds };
  }
}
