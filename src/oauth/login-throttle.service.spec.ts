import { MemoryCounterStore } from '../counters/memory-counter-store';
import { ipGroup, LOGIN_THROTTLE, LoginThrottleService } from './login-throttle.service';
import type { SignInResets } from './sign-in-resets';

/** The resets table of one account, in memory: what `users reset-sign-in` records. */
class RecordedResets {
  readonly at = new Map<string, number>();

  resetAt(account: string): Promise<number | null> {
    return Promise.resolve(this.at.get(account) ?? null);
  }
}

describe('LoginThrottleService', () => {
  let store: MemoryCounterStore;
  let throttle: LoginThrottleService;
  let resets: RecordedResets;

  beforeEach(() => {
    store = new MemoryCounterStore();
    resets = new RecordedResets();
    throttle = new LoginThrottleService(store, resets as unknown as SignInResets);
  });

  afterEach(() => store.onModuleDestroy());

  it('refuses an account past its attempts, from any address, for the rest of the window', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.account.attempts; i++) {
      expect(await throttle.attempt(i % 2 ? 'Alice' : 'alice', `10.0.0.${i}`)).toBe(0);
    }
    const locked = await throttle.attempt('ALICE', '10.0.1.1');
    expect(locked).toBeGreaterThan(0);
    expect(locked).toBeLessThanOrEqual(LOGIN_THROTTLE.account.windowSeconds * 1000);
    expect(await throttle.attempt('bob', '10.0.1.1')).toBe(0);
  });

  it('forgets the attempts an account made before its reset, and only those', async () => {
    for (let i = 0; i <= LOGIN_THROTTLE.account.attempts; i++) {
      await throttle.attempt('dave', `10.0.3.${i}`);
    }
    expect(await throttle.attempt('Dave', '10.0.3.100')).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    resets.at.set('dave', Date.now());
    await new Promise((resolve) => setTimeout(resolve, 5));
    // A fresh window: the full number of attempts again, then locked.
    for (let i = 0; i < LOGIN_THROTTLE.account.attempts; i++) {
      expect(await throttle.attempt('dave', `10.0.4.${i}`)).toBe(0);
    }
    expect(await throttle.attempt('dave', '10.0.4.100')).toBeGreaterThan(0);
  });

  it('lets a reset account in from an address already past its limit: that account only, within its own limit', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.ip.attempts; i++) {
      expect(await throttle.attempt(`user${i}`, '10.0.5.1')).toBe(0);
    }
    expect(await throttle.attempt('erin', '10.0.5.1')).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    resets.at.set('erin', Date.now());
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 0; i < LOGIN_THROTTLE.account.attempts; i++) {
      expect(await throttle.attempt('Erin', '10.0.5.1')).toBe(0);
    }
    expect(await throttle.attempt('erin', '10.0.5.1')).toBeGreaterThan(0);
    expect(await throttle.attempt('someone', '10.0.5.1')).toBeGreaterThan(0);
  });

  it('keeps refusing a reset account from an address whose window opened after the reset', async () => {
    resets.at.set('frank', Date.now());
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 0; i < LOGIN_THROTTLE.ip.attempts; i++) {
      expect(await throttle.attempt(`user${i}`, '10.0.6.1')).toBe(0);
    }
    expect(await throttle.attempt('frank', '10.0.6.1')).toBeGreaterThan(0);
  });

  it('counts attempts made at the same time, before any of them is checked', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => throttle.attempt('carol', `10.0.2.${i}`)),
    );
    expect(results.filter((ms) => ms === 0)).toHaveLength(LOGIN_THROTTLE.account.attempts);
  });

  it('refuses an address past its attempts, for every account', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.ip.attempts; i++) {
      expect(await throttle.attempt(`user${i}`, '10.0.0.1')).toBe(0);
    }
    expect(await throttle.attempt('someone', '10.0.0.1')).toBeGreaterThan(0);
    expect(await throttle.attempt('someone', '10.0.0.2')).toBe(0);
  });

  it('counts IPv6 addresses by their /64', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.ip.attempts; i++) {
      await throttle.attempt(`user${i}`, `2001:db8:1:2::${i.toString(16)}`);
    }
    expect(await throttle.attempt('someone', '2001:db8:1:2:ffff:ffff:ffff:ffff')).toBeGreaterThan(
      0,
    );
    expect(await throttle.attempt('someone', '2001:db8:1:3::1')).toBe(0);
  });
});

describe('ipGroup', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::', '2001:db8:1:2::/64'],
    ['2001:db8::1:2:3:4:5', '2001:db8:0:1::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::203.0.113.7', '64:ff9b:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('%s counts as %s', (ip, group) => {
    expect(ipGroup(ip)).toBe(group);
  });
});
