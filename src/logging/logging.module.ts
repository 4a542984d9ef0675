import { Global, Module } from '@nestjs/common';
import pino, { type DestinationStream } from 'pino';
import type { AppConfig, LogLevel } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AppLogger } from './app-logger';

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

export function createPino(level: LogLevel, destination?: DestinationStream) {
  return pino(
    {
      level: PINO_LEVELS[level],
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, remove: true },
    },
    // Asynchronous writes: a line reaches stdout within milliseconds without a write() per line
    // on the request's path.
    destination ?? pino.destination({ dest: 1, sync: false }),
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
