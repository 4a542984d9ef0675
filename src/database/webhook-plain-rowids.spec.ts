import { DataSource } from 'typeorm';
import { useScratchSqlite } from '../../test/utils/scratch-sqlite';
import { MIGRATIONS } from './typeorm-options';
import { WebhookPlainRowids1800001200000 } from './migrations/1800001200000-webhook-plain-rowids';

const INSERT_MESSAGE = `INSERT INTO webhook_messages (event_id, webhook_id, event_type, user_id, body,
    state, attempts, next_attempt_at, lease_until, created_at)
  VALUES (?, 'w', 'rating.created', 1, '{}', 'pending', 0, 1, 0, 1)`;
const INSERT_ATTEMPT = `INSERT INTO webhook_attempts (webhook_id, event_id, event_type, attempted_at,
    status, error, outcome)
  VALUES ('w', ?, 'rating.created', 1, 204, NULL, 'delivered')`;

describe('migration 1800001200000 on SQLite: the outbox and the attempt log without AUTOINCREMENT', () => {
  const openScratch = useScratchSqlite('plain-rowids-');
  const open = (migrations: typeof MIGRATIONS) => openScratch(migrations);
  const ids = async (dataSource: DataSource, table: string) =>
    (await dataSource.query<{ id: number }[]>(`SELECT id FROM ${table} ORDER BY id`)).map(
      (row) => row.id,
    );
  const counters = async (dataSource: DataSource) =>
    (
      await dataSource.query<{ name: string }[]>(
        "SELECT name FROM sqlite_sequence WHERE name LIKE 'webhook_%' ORDER BY name",
      )
    ).map((row) => row.name);
  const indexes = async (dataSource: DataSource) =>
    (
      await dataSource.query<{ name: string }[]>(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'webhook_%' AND sql IS NOT NULL ORDER BY name",
      )
    ).map((row) => row.name);

  it('keeps the rows, their ids and the indexes, and inserts no longer write a counter; down restores it', async () => {
    // Up to this migration, the later ones not run: down() is then this migration's.
    const through = MIGRATIONS.slice(0, MIGRATIONS.indexOf(WebhookPlainRowids1800001200000) + 1);
    const before = through.slice(0, -1);
    const old = await open(before);
    for (const eventId of ['msg_1', 'msg_2', 'msg_3']) await old.query(INSERT_MESSAGE, [eventId]);
    await old.query('DELETE FROM webhook_messages WHERE id = 2');
    await old.query(INSERT_ATTEMPT, ['msg_1']);
    expect(await counters(old)).toEqual(['webhook_attempts', 'webhook_messages']);
    const indexesBefore = await indexes(old);
    await old.destroy();

    const migrated = await open(through);
    expect(await ids(migrated, 'webhook_messages')).toEqual([1, 3]);
    expect(await ids(migrated, 'webhook_attempts')).toEqual([1]);
    expect(await indexes(migrated)).toEqual(indexesBefore);
    await migrated.query(INSERT_MESSAGE, ['msg_4']);
    await migrated.query(INSERT_ATTEMPT, ['msg_3']);
    expect(await ids(migrated, 'webhook_messages')).toEqual([1, 3, 4]);
    expect(await ids(migrated, 'webhook_attempts')).toEqual([1, 2]);
    expect(await counters(migrated)).toEqual([]);

    await migrated.undoLastMigration();
    await migrated.query(INSERT_MESSAGE, ['msg_5']);
    expect(await ids(migrated, 'webhook_messages')).toEqual([1, 3, 4, 5]);
    expect(await counters(migrated)).toEqual(['webhook_attempts', 'webhook_messages']);
    expect(await indexes(migrated)).toEqual(indexesBefore);
    await migrated.destroy();
  });
});
