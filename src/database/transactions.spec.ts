import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { queueSqliteStatements, runTransaction } from './transactions';

/**
 * Another process's writer (the CLI next to the server), on a thread of its own: better-sqlite3
 * waits for a lock synchronously, so a writer on this thread could never let go meanwhile.
 */
const OTHER_WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.exec('BEGIN IMMEDIATE');
db.exec("INSERT INTO counters (name) VALUES ('other')");
parentPort.postMessage('locked');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
db.exec('COMMIT');
db.close();
`;

describe('runTransaction on SQLite', () => {
  let folder: string;
  let dataSource: DataSource;

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'transactions-'));
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: join(folder, 'test.sqlite'),
      enableWAL: true,
      timeout: 5000,
    });
    await dataSource.initialize();
    queueSqliteStatements(dataSource);
    await dataSource.query('CREATE TABLE counters (name TEXT NOT NULL)');
  });

  afterEach(async () => {
    await dataSource.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  it('waits for a write of another process when it reads before it writes', async () => {
    const worker = new Worker(OTHER_WRITER, {
      eval: true,
      workerData: {
        driver: require.resolve('better-sqlite3'),
        file: join(folder, 'test.sqlite'),
        holdMs: 300,
      },
    });
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    await new Promise((resolve) => worker.once('message', resolve));

    // A deferred transaction would read here, then fail its insert with SQLITE_BUSY at once.
    const seen = await runTransaction(dataSource, async (em) => {
      const [{ n }] = await em.query<{ n: number }[]>('SELECT COUNT(*) AS n FROM counters');
      await em.query("INSERT INTO counters (name) VALUES ('this')");
      return n;
    });
    await exited;

    expect(seen).toBe(1);
    expect(await dataSource.query('SELECT name FROM counters ORDER BY rowid')).toEqual([
      { name: 'other' },
      { name: 'this' },
    ]);
  });
});
