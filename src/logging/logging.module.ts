import { Global, Module } from '@nestjs/common';
import pino, { type DestinationStream } from 'pino';
import type { AppConfig, LogLevel } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AppLogger } from './app-logger';
import { PerTurnDestination } from './per-turn-destination';

/** Where the JSON lines go: stdout. The e2e tests put a stream of their own here to read them. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

const PINO_LEVELS: Record<LogLevel, string> = {
  error: 'error',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
};

/**
 * Nothing logged names a header or a body today; these paths keep a secret out of the log should
 * a line ever carry a request, a response or a form.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'body',
  'req.body',
  'form',
  '*.password',
  '*.client_secret',
  '*.token',
  '*.refresh_token',
  '*.code_verifier',
];

/**
 * pino's `isoTime`, formatted once per millisecond rather than once per line: under load several
 * access lines share a millisecond, and the formatting was a third of a line's cost.
 */
function isoTimeOfTheMillisecond(): () => string {
  let millisecond = -1;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== millisecond) {
      millisecond = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}

export function createPino(level: LogLevel, destination?: DestinationStream) {
  return pino(
    {
      level: PINO_LEVELS[level],
      timestamp: isoTimeOfTheMillisecond(),
      redact: { paths: REDACTED_PATHS, remove: true },
    },
    // Asynchronous writes: a line reaches stdout within milliseconds without a write() per line
    // on the request's path.
    destination ?? new PerTurnDestination(1),
  );
}

@Global()
@Module({
  providers: [
    { provide: LOG_DESTINATION, useValue: null },
    {
      provide: AppLogger,
      inject: [APP_CONFIG, LOG_DESTINATION],
      useFactory: (config: AppConfig, destination: DestinationStream | null) =>
        new AppLogger(createPino(config.logLevel, destination ?? undefined)),
    },
  ],
  exports: [AppLogger],
})
export class LoggingModule {}
