import { Worker } from 'node:worker_threads';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Database } from 'better-sqlite3';
import type { DataSource } from 'typeorm';

/** How often the background thread copies the WAL's committed pages into the database file. */
export const CHECKPOINT_EVERY_MS = 50;

/** Whether this process checkpoints in the background: the server does, the CLI does not. */
export const BACKGROUND_CHECKPOINTS = Symbol('BACKGROUND_CHECKPOINTS');

/** One checkpoint that found pages to copy: `log` frames in the WAL, `checkpointed` of them copied. */
export interface CheckpointResult {
  log: number;
  checkpointed: number;
}

/**
 * The worker's code, given inline so that it runs the same from `dist/` and under ts-jest: it
 * opens the file on a connection of its own and checkpoints it PASSIVE (never waiting on a reader
 * or the writer) every `everyMs`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
// Opening reads the schema: busy while the writer holds a lock, so it is tried again each tick.
let db = null;
const open = () => {
  const opened = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
  opened.pragma('synchronous = NORMAL');
  return opened;
};
let delay = workerData.everyMs;
let lastLog = -1;
let timer;
const tick = () => {
  let moved = false;
  try {
    db ??= open();
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    moved = result.log !== lastLog || result.checkpointed < result.log;
    lastLog = result.log;
    if (result.checkpointed > 0 && moved) parentPort.postMessage(result);
  } catch (error) {
    // Busy: the next tick tries again (the writer's own checkpoints still run). A file that
    // cannot be opened at all ends the thread, reported to the server.
    if (db === null && error.code !== 'SQLITE_BUSY') throw error;
  }
  // Nothing written since the last tick: wait longer, up to a second (an idle server stays idle).
  delay = moved ? workerData.everyMs : Math.min(delay * 2, workerData.idleMs);
  timer = setTimeout(tick, delay);
};
timer = setTimeout(tick, delay);
parentPort.on('message', () => {
  clearTimeout(timer);
  db?.close();
  parentPort.close();
});
`;

export interface CheckpointThread {
  onCheckpoint(listener: (result: CheckpointResult) => void): void;
  stop(): Promise<void>;
}

/**
 * Checkpoints a SQLite file (WAL mode) from a worker thread. Otherwise a write's COMMIT on the
 * server's connection runs SQLite's automatic checkpoint every 1,000 WAL pages, on the event loop:
 * copying the pages and syncing the file stalled that COMMIT for 10 to 22 ms. Measured under PUT
 * load (2026-11-28): a COMMIT's mean 80 → 60 µs for PUTs that change nothing, 153 → 120 µs for
 * PUTs that record a history event. The writer's own automatic checkpoint stays as the backstop
 * should this thread fall behind. SQLite documents this split (wal_autocheckpoint, "a separate
 * thread"); no library does it for better-sqlite3.
 */
export function startCheckpointThread(
  path: string,
  onError: (error: unknown) => void,
  everyMs = CHECKPOINT_EVERY_MS,
): CheckpointThread {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, everyMs, idleMs: 1000, module: require.resolve('better-sqlite3') },
  });
  worker.unref();
  // A thread that fails (the file cannot be opened, out of memory) only ends the background
  // checkpoints: the writer's own automatic checkpoint goes on.
  worker.on('error', onError);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    onCheckpoint: (listener) => worker.on('message', listener),
    async stop() {
      worker.postMessage('stop');
      const timeout = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

/** The server's background checkpoints, for a SQLite file (not for MySQL/MariaDB or :memory:). */
@Injectable()
export class SqliteCheckpoints implements OnApplicationBootstrap, OnApplicationShutdown {
  private thread: CheckpointThread | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(BACKGROUND_CHECKPOINTS) private readonly enabled: boolean,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.enabled || this.dataSource.options.type !== 'better-sqlite3') return;
    const connection = (this.dataSource.driver as unknown as { databaseConnection?: Database })
      .databaseConnection;
    if (!connection || connection.memory) return;
    const logger = new Logger('Database');
    this.thread = startCheckpointThread(connection.name, (error) => {
      // better-sqlite3's errors reach this thread as plain objects: their code is what is left.
      const { message, code } = (error ?? {}) as { message?: string; code?: string };
      logger.warn(`The background WAL checkpoints stopped: ${message ?? code ?? String(error)}`);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.thread?.stop();
    this.thread = null;
  }
}
