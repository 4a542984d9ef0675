import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startCheckpointThread, type CheckpointResult } from './sqlite-checkpoints';

describe('startCheckpointThread', () => {
  let dir: string;
  const fail = (error: unknown) => {
    throw error;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'checkpoints-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies the pages a writer committed to the WAL into the database file', async () => {
    const path = join(dir, 'db.sqlite');
    const writer = new BetterSqlite3(path);
    writer.pragma('journal_mode = WAL');
    // The writer never checkpoints itself: whatever reaches the file, the thread copied.
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = writer.prepare('INSERT INTO t (body) VALUES (?)');
    for (let i = 0; i < 200; i++) insert.run('x'.repeat(1000));
    const sizeBefore = statSync(path).size;

    const thread = startCheckpointThread(path, fail, 10);
    const results: CheckpointResult[] = [];
    const copied = new Promise<CheckpointResult>((resolve) =>
      thread.onCheckpoint((result) => {
        results.push(result);
        if (result.checkpointed === result.log) resolve(result);
      }),
    );
    try {
      const result = await copied;
      expect(result.log).toBeGreaterThan(50);
      expect(statSync(path).size).toBeGreaterThan(sizeBefore + 150 * 1000);
      const reader = new BetterSqlite3(path, { readonly: true });
      expect(reader.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 200 });
      reader.close();
    } finally {
      await thread.stop();
      writer.close();
    }
  });

  it('stops: its connection closes and nothing is copied any more', async () => {
    const path = join(dir, 'db.sqlite');
    const writer = new BetterSqlite3(path);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const thread = startCheckpointThread(path, fail, 10);
    const results: CheckpointResult[] = [];
    thread.onCheckpoint((result) => results.push(result));
    await thread.stop();
    const seen = results.length;
    writer.exec('INSERT INTO t DEFAULT VALUES');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(results).toHaveLength(seen);
    // The writer alone holds the file: closing it checkpoints and removes the WAL.
    writer.close();
    expect(() => statSync(`${path}-wal`)).toThrow();
  });

  it('reports a thread that cannot open the file, and stops cleanly', async () => {
    let thread: ReturnType<typeof startCheckpointThread> | undefined;
    const reported = new Promise<unknown>((resolve) => {
      thread = startCheckpointThread(join(dir, 'missing.sqlite'), resolve, 10);
    });
    expect(JSON.stringify(await reported)).toMatch(/SQLITE_CANTOPEN/);
    await thread!.stop();
  });
});
