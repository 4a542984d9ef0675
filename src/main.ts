import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureApp, createHttpAdapter, createLogger } from './app.setup';
import { InvalidConfigError, loadConfig } from './config/app-config';
import { listen } from './http-server/listen';
import { announceReady } from './http-server/ready-line';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config),
    createHttpAdapter(config),
    // Start-up lines wait for configureApp, which hands them to the app's pino logger.
    { logger: createLogger(config.logLevel), bufferLogs: true },
  );
  configureApp(app);
  await listen(app, config);
  announceReady(app, config);
}

bootstrap().catch((error: unknown) => {
  if (error instanceof InvalidConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
  }
  process.exit(1);
});
