import { LoggerService, OnApplicationShutdown } from '@nestjs/common';
import type { Logger as Pino } from 'pino';

/**
 * Nest's LoggerService on the pino logger that also writes the access log, so application and
 * access lines are one JSON stream. Hand-written (a dozen lines) rather than nestjs-pino, whose
 * per-request context binding (AsyncLocalStorage around every request) the access log does not
 * need: its line carries the request id itself.
 */
/**
 * Nest's start-up chatter (a line per module, controller and route): debug, so that at `info` the
 * start-up is the one ready line of main.ts.
 */
const NEST_BOOT_CONTEXTS = new Set<unknown>([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

export class AppLogger implements LoggerService, OnApplicationShutdown {
  constructor(readonly pino: Pino) {}

  /** The last lines out before a signal ends the process (no 'exit' event to flush them then). */
  onApplicationShutdown(): void {
    this.pino.flush();
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write(NEST_BOOT_CONTEXTS.has(rest[rest.length - 1]) ? 'debug' : 'info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack?, context?).
    const [stack, context] = rest.length >= 2 ? rest : [undefined, rest[0]];
    if (context === 'NestApplication' && isFailedListen(message)) {
      // Nest's own line for a listen that failed: main.ts reports the failure, naming PORT.
      this.pino.debug({ context }, message);
      return;
    }
    const fields: Record<string, unknown> = {};
    if (typeof context === 'string') fields.context = context;
    if (typeof stack === 'string') fields.stack = stack;
    if (message instanceof Error) {
      fields.stack = message.stack;
      this.pino.error(fields, message.message);
      return;
    }
    this.pino.error(fields, stringify(message));
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: 'info' | 'warn' | 'debug' | 'fatal', message: unknown, rest: unknown[]) {
    const context = rest[rest.length - 1];
    const fields = typeof context === 'string' ? { context } : {};
    this.pino[level](fields, stringify(message));
  }
}

function isFailedListen(message: unknown): message is string {
  return typeof message === 'string' && message.startsWith('Error: listen ');
}

function stringify(message: unknown): string {
  return typeof message === 'string' ? message : JSON.stringify(message);
}
