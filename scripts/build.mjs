// Builds src/ into dist/: the command line and everything it loads bundled by esbuild into a few files under
// dist/cli/ (docs/decisions/061-the-bot-starts-from-a-bundle.md), with the files that are not TypeScript beside them.
// Types are checked by `npm run typecheck`, not here. The build is made in a folder of its own and its stamp
// (bin/source-stamp.js) written last, then swapped in, so dist/ is either a whole build or absent.
// `--if-stale` (npm's prestart) does nothing when dist/ is current, and when esbuild is not installed says so and
// leaves bin/tandem.js to run the sources.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_OPTIONS, compiledIsCurrent, readBuildInputs, STAMP_FILE, stampOf } from '../bin/source-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ifStale = process.argv.includes('--if-stale');

if (!(ifStale && compiledIsCurrent(root))) {
  const esbuild = await import('esbuild').catch(() => undefined);
  if (!esbuild) {
    if (!ifStale) throw new Error('npm run build needs esbuild: run npm install (with dev dependencies)');
    console.error('tandem: esbuild is not installed, so the sources run through tsx (no build).');
  } else {
    await build(esbuild);
  }
}

async function build(esbuild) {
  const inputs = readBuildInputs(root);
  const staging = path.join(root, `dist.building-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  const out = path.join(staging, 'cli');
  await esbuild.build({
    ...BUNDLE_OPTIONS,
    entryPoints: [path.join(root, 'src/cli/main.ts')],
    outdir: out,
    absWorkingDir: root,
    logLevel: 'warning',
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);" },
  });
  for (const { name, bytes } of inputs) {
    if (!name.startsWith('src/') || name.endsWith('.ts')) continue;
    const target = path.join(out, assetPath(name));
    if (existsSync(target)) throw new Error(`two files of src/ would be ${path.relative(staging, target)} in the build: rename one`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
  writeFileSync(path.join(staging, STAMP_FILE), `${stampOf(inputs)}\n`);
  rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  renameSync(staging, path.join(root, 'dist'));
}

/**
 * Where a file of src/ that is not TypeScript goes, relative to the bundle. The code finds it relative to its own
 * module (`new URL('./pglite-thread.mjs', import.meta.url)`, `new URL('./page/', …)`), and in the build every module
 * is in dist/cli/: so a script goes beside the bundle, and a folder of files (the local workspace's page) keeps its
 * own name. Paths up from a module (`../../drizzle`) hold because src/<folder>/<file> and dist/cli/<file> are as deep.
 */
function assetPath(name) {
  const parts = name.split('/');
  const folder = parts.indexOf('page');
  return folder === -1 ? parts.at(-1) : parts.slice(folder).join('/');
}
