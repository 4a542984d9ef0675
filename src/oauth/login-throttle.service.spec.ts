import { MemoryCounterStore } from '../counters/memory-counter-store';
import { LOGIN_THROTTLE, LoginThrottleService } from './login-throttle.service';

describe('LoginThrottleService', () => {
  let store: MemoryCounterStore;
  let throttle: LoginThrottleService;

  beforeEach(() => {
    store = new MemoryCounterStore();
    throttle = new LoginThrottleService(store);
  });

  afterEach(() => store.onModuleDestroy());

  it('locks an account after its failures, from any address, for the rest of the window', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.account.failures - 1; i++) {
      await throttle.recordFailure('Alice', `10.0.0.${i}`);
    }
    expect(await throttle.lockedForMs('alice', '10.0.1.1')).toBe(0);
    await throttle.recordFailure('alice', '10.0.0.99');
    const locked = await throttle.lockedForMs('ALICE', '10.0.1.1');
    expect(locked).toBeGreaterThan(0);
    expect(locked).toBeLessThanOrEqual(LOGIN_THROTTLE.account.windowSeconds * 1000);
    expect(await throttle.lockedForMs('bob', '10.0.1.1')).toBe(0);
  });

  it('locks an address after its failures, for every account', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.ip.failures; i++) {
      await throttle.recordFailure(`user${i}`, '10.0.0.1');
    }
    expect(await throttle.lockedForMs('someone', '10.0.0.1')).toBeGreaterThan(0);
    expect(await throttle.lockedForMs('someone', '10.0.0.2')).toBe(0);
  });
});
