/* global process */
// Creates a PGlite data folder and exits. Run as its own short-lived process by database.ts on first start:
// PostgreSQL's initdb grows PGlite's WebAssembly memory to about 800 MB, and a process that has grown its
// heap that far keeps most of it, so the long-lived bot opens the folder only after this process is gone.
import v8 from 'node:v8';

// initdb's code runs once: optimising it as it runs (TurboFan) costs more CPU than it saves, as in bin/tandem.js
// (docs/decisions/050-webassembly-optimised-when-hot.md). Set before PGlite's WebAssembly is compiled.
v8.setFlagsFromString('--wasm-tiering-budget=1800000000');
const { PGlite } = await import('@electric-sql/pglite');

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: pglite-initdb.mjs <data folder>');
const client = await PGlite.create(dataDir);
await client.close();
