// `node dist/openapi-export.js FILE`: writes the OpenAPI document the server serves at
// /docs/openapi.json to FILE (standard output without one), for `npm run openapi:check` and for
// client generators. The app is built as main.ts builds it, on a throwaway SQLite database, and
// asked through Fastify's inject: no port, no server left running.
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureApp, createHttpAdapter } from './app.setup';
import { loadConfig } from './config/app-config';

async function exportDocument(target: string | undefined): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'openapi-export-'));
  try {
    const config = loadConfig({
      DATABASE_URL: `sqlite:${join(folder, 'export.sqlite')}`,
      LOG_LEVEL: 'error',
      // Every optional route documented; a server without them serves a document without them.
      PUBLIC_LISTS: 'true',
      PUBLIC_CARDS: 'true',
    });
    const app = await NestFactory.create<NestFastifyApplication>(
      AppModule.forRoot(config),
      createHttpAdapter(config),
      { logger: ['fatal', 'error'] },
    );
    configureApp(app);
    await app.init();
    const response = await app
      .getHttpAdapter()
      .getInstance()
      .inject({ method: 'GET', url: '/docs/openapi.json' });
    await app.close();
    if (response.statusCode !== 200) {
      throw new Error(`GET /docs/openapi.json answered ${response.statusCode}`);
    }
    const text = `${JSON.stringify(JSON.parse(response.body), null, 2)}\n`;
    if (target) writeFileSync(target, text);
    else process.stdout.write(text);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

exportDocument(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
