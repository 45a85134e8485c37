/* global process */
// Creates a PGlite data folder and exits. Run as its own short-lived process by database.ts on first start:
// PostgreSQL's initdb grows PGlite's WebAssembly memory to about 800 MB, and a process that has grown its
// heap that far keeps most of it, so the long-lived bot opens the folder only after this process is gone.
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: pglite-initdb.mjs <data folder>');
const client = await PGlite.create(dataDir);
await client.close();
