/** At most `limit` holders at once and at most `queueLimit` waiting, in this process. */
export class Semaphore {
  private holders = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly queueLimit: number,
  ) {}

  /** Resolves with the function that releases the slot, or with null at once when the queue is full. */
  acquire(): Promise<(() => void) | null> {
    if (this.holders < this.limit) {
      this.holders++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.queueLimit) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(() => resolve(this.releaser())));
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, or is freed.
      if (next) next();
      else this.holders--;
    };
  }
}
