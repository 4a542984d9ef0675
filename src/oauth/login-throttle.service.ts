import { Injectable } from '@nestjs/common';
import { CounterStore } from '../counters/counter-store';

/** Failed sign-ins allowed per account name, and per client IP, in one window. */
export const LOGIN_THROTTLE = {
  account: { failures: 5, windowSeconds: 15 * 60 },
  ip: { failures: 20, windowSeconds: 15 * 60 },
} as const;

/**
 * Throttles password guessing on the sign-in page, per account (one account attacked from many
 * addresses) and per IP (one address trying many accounts). Failed attempts count in fixed windows
 * of the CounterStore; reaching the limit locks the account or address until the window ends.
 * A locked sign-in is refused before the password is even checked, so guessing gains nothing.
 * Shared by every instance when the CounterStore is Redis.
 */
@Injectable()
export class LoginThrottleService {
  constructor(private readonly counters: CounterStore) {}

  /** Milliseconds until sign-in is allowed again for this account from this address; 0 when it is. */
  async lockedForMs(accountName: string, ip: string): Promise<number> {
    const [account, address] = await Promise.all([
      this.counters.flagRemainingMs(lockKey('account', accountName)),
      this.counters.flagRemainingMs(lockKey('ip', ip)),
    ]);
    return Math.max(account, address);
  }

  async recordFailure(accountName: string, ip: string): Promise<void> {
    await Promise.all([
      this.count('account', accountName, LOGIN_THROTTLE.account),
      this.count('ip', ip, LOGIN_THROTTLE.ip),
    ]);
  }

  private async count(
    kind: 'account' | 'ip',
    subject: string,
    limit: { failures: number; windowSeconds: number },
  ): Promise<void> {
    const { count, resetMs } = await this.counters.hit(
      `login-failures:${kind}:${normalise(kind, subject)}`,
      limit.windowSeconds * 1000,
    );
    if (count >= limit.failures) {
      await this.counters.raiseFlag(lockKey(kind, subject), Math.max(resetMs, 1000));
    }
  }
}

/** Account names compare case-insensitively here, and are cut to the longest a name can be. */
function normalise(kind: 'account' | 'ip', subject: string): string {
  return kind === 'account' ? subject.slice(0, 64).toLowerCase() : subject;
}

function lockKey(kind: 'account' | 'ip', subject: string): string {
  return `login-locked:${kind}:${normalise(kind, subject)}`;
}
