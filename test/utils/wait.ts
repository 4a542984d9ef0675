export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it holds; fails the test after `ms` (a bound against hanging, not a measure). */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  ms = 60_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not reached in time`);
    await sleep(100);
  }
}

/** Waits until GET `path` (/health/live, or /health/ready) of a server on `port` answers 200. */
export function serverIsLive(port: number, ms = 15_000, path = '/health/live'): Promise<void> {
  return eventually(
    () =>
      fetch(`http://127.0.0.1:${port}${path}`).then(
        (response) => response.status === 200,
        () => false,
      ),
    ms,
    `the server on port ${port} answering`,
  );
}
