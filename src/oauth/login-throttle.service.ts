import { Injectable } from '@nestjs/common';
import { isIPv6 } from 'node:net';
import { CounterStore } from '../counters/counter-store';
import { SignInResets } from './sign-in-resets';
import { throttledAccount } from './throttled-account';

/** Sign-in attempts allowed per account name, and per client IP, in one window. */
export const LOGIN_THROTTLE = {
  account: { attempts: 5, windowSeconds: 15 * 60 },
  ip: { attempts: 20, windowSeconds: 15 * 60 },
} as const;

/**
 * Throttles password guessing on the sign-in page, per account (one account attacked from many
 * addresses) and per IP (one address trying many accounts; IPv6 by /64, the block one client
 * usually holds whole). Each attempt is counted before its password is checked, successful ones
 * too: concurrent guesses cannot all be checked before the first failure is recorded. Past the
 * limit an attempt is refused, even with the right password, until the fixed window of the
 * CounterStore ends. Shared by every instance when the CounterStore is Redis.
 *
 * The operator's `users reset-sign-in` is recorded in the database (SignInResets), since the
 * counters may live in another process's memory. It lifts both limits for that account: the
 * attempts on it counted before the reset no longer count, and an address whose window was
 * already full when the reset came may still try that account (other accounts stay refused) until
 * that window ends. The account's own limit still bounds the guesses at it: an address gains no
 * more than another address would have.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    private readonly counters: CounterStore,
    private readonly resets: SignInResets,
  ) {}

  /**
   * Counts one sign-in attempt. Returns the milliseconds until sign-in is allowed again when the
   * attempt is over a limit (it must then be refused without checking the password), else 0.
   */
  async attempt(accountName: string, ip: string): Promise<number> {
    const account = throttledAccount(accountName);
    const [accountMs, addressMs] = await Promise.all([
      this.count('account', account, account, LOGIN_THROTTLE.account),
      this.count('ip', ipGroup(ip), account, LOGIN_THROTTLE.ip),
    ]);
    return Math.max(accountMs, addressMs);
  }

  private async count(
    kind: 'account' | 'ip',
    subject: string,
    account: string,
    limit: { attempts: number; windowSeconds: number },
  ): Promise<number> {
    const key = `login-attempts:${kind}:${subject}`;
    const windowMs = limit.windowSeconds * 1000;
    let { count, resetMs } = await this.counters.hit(key, windowMs);
    // A window this attempt did not open may have been reset by the operator since it opened.
    const resetSinceOpened = async () => {
      const resetAt = await this.resets.resetAt(account);
      return resetAt !== null && resetAt > Date.now() + resetMs - windowMs;
    };
    if (kind === 'account' && count > 1 && (await resetSinceOpened())) {
      await this.counters.forget(key);
      ({ count, resetMs } = await this.counters.hit(key, windowMs));
    }
    if (count <= limit.attempts) return 0;
    if (kind === 'ip' && (await resetSinceOpened())) return 0;
    return Math.max(resetMs, 1000);
  }
}

/**
 * What an IP counts under: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64, spelled one way
 * whichever way the address was written.
 */
export function ipGroup(ip: string): string {
  const address = ip.split('%')[0];
  if (!isIPv6(address)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  const [head, tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  // A trailing dotted IPv4 part is two groups wide; "::" stands for the groups left out.
  const width = (list: string[]) => list.length + (list.at(-1)?.includes('.') ? 1 : 0);
  const all =
    tail === undefined
      ? groups(head)
      : [
          ...groups(head),
          ...Array<string>(8 - width(groups(head)) - width(groups(tail))).fill('0'),
          ...groups(tail),
        ];
  return `${all
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
