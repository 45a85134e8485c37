// What the compiled output in dist/ was built from: a hash of every file under src/, the lockfile and the
// bundle options. bin/tandem.js runs dist/ only when its recorded stamp equals the stamp of
// the sources on disk now, so an edit, a new or deleted file, or a half-written build can never run old code.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the stamp of a build is written, inside the build; it is written last. */
export const STAMP_FILE = '.source-stamp';

/**
 * How scripts/build.mjs bundles src/cli/main.ts (esbuild's names). Left outside the bundle: the packages that load
 * files of their own relative to themselves (PGlite's and Cedar's WebAssembly, pino's worker, OpenTelemetry's exporters
 * and their protocol files; the OpenTelemetry API stays one instance with the SDK's); they, and what they import, come
 * from node_modules as before.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  splitting: true,
  external: ['@electric-sql/pglite', '@cedar-policy/cedar-wasm', 'pino', '@opentelemetry/*'],
};

/**
 * The build's input, as paths relative to `root` ('/'-separated, sorted) with their bytes: every file under src/, and
 * package-lock.json where there is one, since the bundle holds copies of the packages it names.
 */
export function readBuildInputs(root) {
  const names = listFiles(path.join(root, 'src')).map((file) => path.relative(root, file).split(path.sep).join('/'));
  if (existsSync(path.join(root, 'package-lock.json'))) names.push('package-lock.json');
  return names.sort().map((name) => ({ name, bytes: readFileSync(path.join(root, name)) }));
}

export function stampOf(inputs) {
  const hash = createHash('sha256').update(JSON.stringify(BUNDLE_OPTIONS));
  for (const { name, bytes } of inputs) hash.update(`${name}\0${bytes.length}\0`).update(bytes);
  return hash.digest('hex');
}

/** True when `root`/dist holds a finished build of exactly the sources in `root` now. */
export function compiledIsCurrent(root) {
  let recorded;
  try {
    recorded = readFileSync(path.join(root, 'dist', STAMP_FILE), 'utf8').trim();
  } catch {
    return false;
  }
  try {
    return recorded === stampOf(readBuildInputs(root));
  } catch {
    return false;
  }
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : entry.isFile() ? [full] : [];
  });
}
