/** A command's result, or one item of a listing: one JSON document on one line of standard output. */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A listing: one JSON line per item, so that scripts can read it line by line. */
export function printJsonLines(values: Iterable<unknown>): void {
  for (const value of values) printJsonLine(value);
}
