import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase } from '../../src/store/index.ts';

/**
 * A migrated database of its own on the TEST_DATABASE_URL (or DATABASE_URL) server, dropped by `drop()`, so
 * a bench neither sees nor leaves rows elsewhere. Undefined when no server is configured.
 */
export async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!serverUrl) return undefined;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = `tandem_bench_${randomBytes(6).toString('hex')}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const setup = await openDatabase({ url: url.toString() });
  await setup.migrate();
  await setup.close();
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
