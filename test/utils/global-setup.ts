import { createRunDatabase } from './test-database';
import { createRunTempDir, missingServices } from './test-services';

/**
 * Checks what the suite needs before any spec runs, and stops at once naming what is missing
 * (rather than each spec timing out on its own); then makes the run's database and temp folder.
 */
export default async function globalSetup(): Promise<void> {
  const missing = await missingServices();
  if (missing.length > 0) {
    throw new Error(`The e2e suite cannot run:\n- ${missing.join('\n- ')}`);
  }
  process.env.E2E_TMP_DIR = createRunTempDir();
  process.env.E2E_DATABASE_URL = await createRunDatabase();
}
