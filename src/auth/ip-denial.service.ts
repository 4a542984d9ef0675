import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CounterStore } from '../counters/counter-store';

/**
 * Temporary denial of a client address that keeps sending rejected User-Agents (decisions §4).
 * State lives in the CounterStore, so with Redis every instance denies the same addresses.
 */
@Injectable()
export class IpDenialService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: CounterStore,
  ) {}

  /** Milliseconds left on the address's denial; 0 when it is not denied. */
  deniedForMs(ip: string): Promise<number> {
    if (this.config.userAgent.denyThreshold === 0) return Promise.resolve(0);
    return this.counters.flagRemainingMs(`deny:${ip}`);
  }

  async recordRejectedUserAgent(ip: string): Promise<void> {
    const { denyThreshold, denyWindowSeconds, denySeconds } = this.config.userAgent;
    if (denyThreshold === 0) return;
    const { count } = await this.counters.hit(`ua-rejections:${ip}`, denyWindowSeconds * 1000);
    if (count >= denyThreshold) await this.counters.raiseFlag(`deny:${ip}`, denySeconds * 1000);
  }
}
