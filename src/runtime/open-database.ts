import type { Config } from '../config/config.ts';
import { openDatabase, type Database } from '../store/index.ts';

/** PostgreSQL when DATABASE_URL is set, else the embedded PGlite folder under DATA_DIR; migrated. */
export async function openConfiguredDatabase(config: Readonly<Config>): Promise<Database> {
  const database = config.database.url ? await openDatabase({ url: config.database.url }) : await openDatabase({ dataDir: config.database.dataDir });
  try {
    await database.migrate();
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
