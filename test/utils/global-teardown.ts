import { rmSync } from 'node:fs';
import { dropRunDatabase } from './test-database';

export default async function globalTeardown(): Promise<void> {
  if (process.env.E2E_DATABASE_URL) await dropRunDatabase(process.env.E2E_DATABASE_URL);
  if (process.env.E2E_TMP_DIR) rmSync(process.env.E2E_TMP_DIR, { recursive: true, force: true });
}
