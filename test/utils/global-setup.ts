import { createRunDatabase } from './test-database';

export default async function globalSetup(): Promise<void> {
  process.env.E2E_DATABASE_URL = await createRunDatabase();
}
