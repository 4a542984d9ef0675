import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  it('lets `limit` holders in, queues up to `queueLimit`, refuses the rest at once', async () => {
    const semaphore = new Semaphore(2, 1);
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    expect(first).toBeInstanceOf(Function);
    expect(second).toBeInstanceOf(Function);

    let thirdIn = false;
    const third = semaphore.acquire().then((release) => {
      thirdIn = true;
      return release;
    });
    expect(await semaphore.acquire()).toBeNull();
    await Promise.resolve();
    expect(thirdIn).toBe(false);

    first!();
    first!(); // a second release of the same slot changes nothing
    const releaseThird = await third;
    expect(thirdIn).toBe(true);
    // Two holders again (second and third), and the queue is empty.
    const queued = semaphore.acquire();
    expect(await semaphore.acquire()).toBeNull();
    second!();
    const fourth = await queued;
    expect(fourth).toBeInstanceOf(Function);
    releaseThird!();
    fourth!();
    expect(await semaphore.acquire()).toBeInstanceOf(Function);
    expect(await semaphore.acquire()).toBeInstanceOf(Function);
  });
});
