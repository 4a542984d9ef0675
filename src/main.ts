import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pino from 'pino';
import { AppModule } from './app.module';
import { configureApp, createHttpAdapter } from './app.setup';
import { InvalidConfigError, loadConfig } from './config/app-config';
import { ListenError, listen } from './http-server/listen';
import { announceReady } from './http-server/ready-line';
import { AppLogger } from './logging/app-logger';
import { createPino } from './logging/logging.module';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  // Until configureApp hands over to the app's own logger: the same JSON lines, written at once,
  // so that a start that fails (database retries, Nest's exception handler) leaves them all.
  const startupLogger = new AppLogger(
    createPino(config.logLevel, pino.destination({ dest: 1, sync: true })),
  );
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config),
    createHttpAdapter(config),
    { logger: startupLogger },
  );
  configureApp(app);
  await listen(app, config);
  announceReady(app, config);
}

bootstrap().catch((error: unknown) => {
  if (error instanceof InvalidConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof ListenError) {
    new Logger('Server').fatal(error.message);
  } else {
    new Logger('Server').error(
      `Failed to start: ${error instanceof Error ? error.message : String(error)}`,
      error instanceof Error ? error.stack : undefined,
    );
  }
  process.exit(1);
});
