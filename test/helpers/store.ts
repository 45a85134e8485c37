import { afterAll, beforeAll } from 'vitest';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createMemoryRunStore } from '../../src/agent/testing/memory-store/index.ts';
import { createRunStore, openDatabase } from '../../src/store/index.ts';
import { DEFAULT_ENGINE, ENGINES, openTestDatabase, type Engine, type TestDatabase } from './database.ts';

/** Where a RunStore keeps its rows: in memory (src/agent/testing/memory-store), or a real database engine. */
export type StoreEngine = 'memory' | Engine;

/** Every engine the store contract holds on: memory and PGlite always, PostgreSQL with TEST_DATABASE_URL. */
export const STORE_ENGINES: StoreEngine[] = ['memory', ...ENGINES];

export interface TestStore {
  store: RunStore;
  /** The database under the store; undefined in memory. */
  database: TestDatabase | undefined;
  /**
   * A second connection to the same rows, as another replica has: its own pool on PostgreSQL; the same store in
   * memory and on PGlite (one process, so its calls are merely concurrent).
   */
  connectAgain(): Promise<{ store: RunStore; close(): Promise<void> }>;
  destroy(): Promise<void>;
}

/** A RunStore of its own on `engine`, empty. */
export async function openTestStore(engine: StoreEngine): Promise<TestStore> {
  if (engine === 'memory') {
    const store = createMemoryRunStore();
    return { store, database: undefined, connectAgain: async () => ({ store, close: async () => {} }), destroy: async () => {} };
  }
  const database = await openTestDatabase(engine);
  const store = createRunStore(database.db);
  return {
    store,
    database,
    async connectAgain() {
      if (!database.url) return { store, close: async () => {} };
      const other = await openDatabase({ url: database.url });
      return { store: createRunStore(other.db), close: () => other.close() };
    },
    destroy: () => database.destroy(),
  };
}

/**
 * One store shared by every test in the calling file (PGlite costs seconds and hundreds of MB per
 * instance). Call at the top level of a test file; read `.store` inside tests.
 */
export function useTestStore(engine: Engine = DEFAULT_ENGINE): { readonly store: RunStore; readonly database: TestDatabase } {
  let opened: TestStore | undefined;
  beforeAll(async () => {
    opened = await openTestStore(engine);
  });
  afterAll(async () => {
    await opened?.destroy();
  });
  return {
    get store() {
      if (!opened) throw new Error('useTestStore: the store is ready only inside tests and hooks');
      return opened.store;
    },
    get database() {
      if (!opened?.database) throw new Error('useTestStore: the database is ready only inside tests and hooks');
      return opened.database;
    },
  };
}

/**
 * An in-memory store for every test in the calling file: the agent's unit tests run on it (it passes the
 * same contract suite as the real engines). A test about durability or SQL takes `useTestStore()` instead.
 */
export function useMemoryStore(): { readonly store: RunStore } {
  let store: RunStore | undefined;
  beforeAll(() => {
    store = createMemoryRunStore();
  });
  return {
    get store() {
      if (!store) throw new Error('useMemoryStore: the store is ready only inside tests and hooks');
      return store;
    },
  };
}
