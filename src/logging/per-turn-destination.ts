import { writeSync } from 'node:fs';
import { register } from 'on-exit-leak-free';
import pino, { type DestinationStream } from 'pino';
import type SonicBoom from 'sonic-boom';

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * pino's asynchronous destination (sonic-boom) on a file descriptor, fed once per turn of the
 * event loop instead of once per line. Fed a line at a time, sonic-boom costs about 5 µs a line
 * under load: an `fs.write` on libuv's pool for nearly every line, and each `write` measures its
 * whole pending string again (`Buffer.byteLength` flattens the concatenation), which is also why
 * its own `minLength` buffering does not help. The lines of one turn, joined, cost it about 1.5 µs
 * a line. They are handed over in that turn's `setImmediate`.
 */
export class PerTurnDestination implements DestinationStream {
  private pending: string[] = [];
  private readonly target: SonicBoom;

  constructor(private readonly fd: number) {
    this.target = pino.destination({ dest: fd, sync: false });
    // After pino's own exit handler, which the line above registers; held weakly, as pino's is,
    // so that the destinations of apps closed before the exit (the e2e tests') are not kept.
    register(this, (destination) => {
      try {
        destination.flushSync();
      } catch {
        // stdout closed while the process exits: nothing is left to tell.
      }
    });
  }

  write(line: string): void {
    if (this.pending.push(line) === 1) setImmediate(this.handOver);
  }

  private readonly handOver = (): void => {
    if (this.pending.length === 0) return;
    this.target.write(this.take());
  };

  /**
   * pino's `logger.flush()`: everything written so far reaches the descriptor before this returns
   * (at shutdown: a signal ends the process without an 'exit' event).
   */
  flush(done: (error?: Error) => void = () => {}): void {
    try {
      this.flushSync();
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  /** What sonic-boom holds first, then the lines of this turn (also at exit). */
  flushSync(): void {
    this.target.flushSync();
    if (this.pending.length > 0) writeFully(this.fd, this.take());
  }

  private take(): string {
    const lines = this.pending;
    this.pending = [];
    return lines.length === 1 ? lines[0] : lines.join('');
  }
}

/**
 * A synchronous write of the whole text, as sonic-boom's `flushSync` does for its own buffer:
 * partial writes continued, a full non-blocking pipe (EAGAIN) waited for, for a second at most.
 */
function writeFully(fd: number, text: string): void {
  let bytes = Buffer.from(text);
  const giveUpAt = Date.now() + 1000;
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > giveUpAt) throw error;
      Atomics.wait(PAUSE, 0, 0, 10);
    }
  }
}
