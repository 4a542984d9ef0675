/** A command's result, or one item of a listing: one JSON document on one line of standard output. */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A listing: one JSON line per item, so that scripts can read it line by line. */
export function printJsonLines(values: Iterable<unknown>): void {
  for (const value of values) printJsonLine(value);
}

/**
 * A reader that stops early (`users list | head -1`) closes the pipe, and the next write fails
 * with EPIPE. The rest of the output has nobody to read it: stop at once, quietly, with status 0,
 * as the reader chose to stop (SIGPIPE's conventional 141 would fail `set -o pipefail` scripts on
 * every `| head`). Writes already done, such as a committed import, stay done.
 */
export function exitQuietlyWhenOutputClosed(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
