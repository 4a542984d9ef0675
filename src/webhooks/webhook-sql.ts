import type { EntityManager } from 'typeorm';

/**
 * What the SQL of the webhooks' repositories shares. Times in the outbox and the log are Unix
 * milliseconds.
 */

/**
 * The outbox as an UPDATE or DELETE by id names it, per dialect: without stats SQLite may rather
 * scan an index than look ids up.
 */
export const MESSAGES_BY_ID = {
  mysql: 'webhook_messages',
  sqlite: 'webhook_messages NOT INDEXED',
};

export function placeholders(count: number): string {
  return Array(count).fill('?').join(', ');
}

/** The ids of all webhooks, to walk IDX_webhook_messages_webhook one webhook at a time. */
export async function allWebhookIds(em: EntityManager): Promise<string[]> {
  const rows = await em.query<{ id: string }[]>('SELECT id FROM webhooks');
  return rows.map((row) => row.id);
}

/** Deletes the rows by id; says how many. */
export async function deleteRows(
  em: EntityManager,
  table: string,
  rows: { id: number }[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => Number(row.id));
  await em.query(`DELETE FROM ${table} WHERE id IN (${placeholders(ids.length)})`, ids);
  return ids.length;
}
