/** The package (pino's own, for its asynchronous destination) ships no types. */
declare module 'on-exit-leak-free' {
  /** Calls `fn(obj, 'exit')` at process exit while `obj` lives (held weakly: no leak). */
  export function register<T extends object>(obj: T, fn: (obj: T, event: string) => void): void;
}
