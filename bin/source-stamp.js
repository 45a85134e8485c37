// What the compiled output in dist/ was built from: a hash of every file under src/ and of the
// compiler options. bin/tandem.js runs dist/ only when its recorded stamp equals the stamp of
// the sources on disk now, so an edit, a new or deleted file, or a half-written build can never run old code.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the stamp of a build is written, inside the build; it is written last. */
export const STAMP_FILE = '.source-stamp';

/**
 * How scripts/build.mjs compiles each file (TypeScript's names, as in tsconfig.json). ES modules as
 * package.json's "type" says; `./x.ts` imports become `./x.js`.
 */
export const COMPILER_OPTIONS = { module: 'esnext', target: 'es2022', rewriteRelativeImportExtensions: true, esModuleInterop: true };

/** Every file under src/ (the build's input), as paths relative to `root` ('/'-separated, sorted) with their bytes. */
export function readBuildInputs(root) {
  const names = listFiles(path.join(root, 'src')).map((file) => path.relative(root, file).split(path.sep).join('/'));
  return names.sort().map((name) => ({ name, bytes: readFileSync(path.join(root, name)) }));
}

export function stampOf(inputs) {
  const hash = createHash('sha256').update(JSON.stringify(COMPILER_OPTIONS));
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
