import { afterAll, beforeAll } from 'vitest';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createRunStore } from '../../src/store/index.ts';
import { DEFAULT_ENGINE, openTestDatabase, type Engine, type TestDatabase } from './database.ts';

/**
 * One store shared by every test in the calling file (PGlite costs seconds and hundreds of MB per
 * instance). Call at the top level of a test file; read `.store` inside tests.
 */
export function useTestStore(engine: Engine = DEFAULT_ENGINE): { readonly store: RunStore; readonly database: TestDatabase } {
  let database: TestDatabase | undefined;
  let store: RunStore | undefined;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    store = createRunStore(database.db);
  });
  afterAll(async () => {
    await database?.destroy();
  });
  return {
    get store() {
      if (!store) throw new Error('useTestStore: the store is ready only inside tests and hooks');
      return store;
    },
    get database() {
      if (!database) throw new Error('useTestStore: the database is ready only inside tests and hooks');
      return database;
    },
  };
}
