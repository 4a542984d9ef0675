/** The end of an exhaustive `switch`: a case not handled above stops the compiler here. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unhandled ${what}: ${String(value)}`);
}
