#!/usr/bin/env node
// Runs the compiled output (dist/, made by `npm run build`, which `npm start` runs first) when it was
// built from exactly the sources on disk now; otherwise the TypeScript sources through tsx, as in a
// checkout that was never built. Compiled, the process idles ~80 MB lighter: on Node 20 tsx's loader
// runs on a thread of its own with its own heap.
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { compiledIsCurrent } from './source-stamp.js';

// Node 20's V8 can abort the whole process ("unreachable code" while deoptimizing a function with an inlined
// builtin) in a long-lived process that makes many policy decisions; with TurboFan's inlining off it did not
// (docs/decisions/033-v8-deoptimizer-abort.md). Set before any of our code is compiled.
if (process.versions.node.startsWith('20.')) v8.setFlagsFromString('--no-turbo-inlining');

// WebAssembly (Cedar's policy validator, PGlite's PostgreSQL) is optimised by TurboFan once it has run a little:
// at start that is ~1 s of CPU and ~60 MB spent optimising code that runs once (validating the policy, initdb,
// opening the store). At this budget only code that stays hot for a long time is optimised
// (docs/decisions/050-webassembly-optimised-when-hot.md). Set before Cedar or PGlite is loaded.
v8.setFlagsFromString('--wasm-tiering-budget=1800000000');

if (compiledIsCurrent(fileURLToPath(new URL('..', import.meta.url)))) {
  await import('../dist/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
