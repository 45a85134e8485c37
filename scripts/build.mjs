// Compiles src/ to dist/ (one file at a time: types are checked by `npm run typecheck`, not here) and
// copies the files that are not TypeScript. The build is made in a folder of its own and its stamp
// (bin/source-stamp.js) written last, then swapped in, so dist/ is either a whole build or absent.
// `--if-stale` (npm's prestart) does nothing when dist/ is current, and when TypeScript is not
// installed (`npm install --omit=dev`) says so and leaves bin/tandem.js to run the sources.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILER_OPTIONS, compiledIsCurrent, readBuildInputs, STAMP_FILE, stampOf } from '../bin/source-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ifStale = process.argv.includes('--if-stale');

if (!(ifStale && compiledIsCurrent(root))) {
  const ts = await import('typescript').then(
    (module) => module.default,
    () => undefined,
  );
  if (!ts) {
    if (!ifStale) throw new Error('npm run build needs TypeScript: run npm install (with dev dependencies)');
    console.error('tandem: TypeScript is not installed, so the sources run through tsx (no build).');
  } else {
    build(ts);
  }
}

function build(ts) {
  const inputs = readBuildInputs(root);
  const options = compilerOptions(ts);
  const staging = path.join(root, `dist.building-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  for (const { name, bytes } of inputs) {
    const target = path.join(staging, name.slice('src/'.length));
    mkdirSync(path.dirname(target), { recursive: true });
    if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
      const { outputText } = ts.transpileModule(bytes.toString('utf8'), { compilerOptions: options, fileName: name });
      writeFileSync(target.replace(/\.ts$/, '.js'), outputText);
    } else {
      writeFileSync(target, bytes);
    }
  }
  writeFileSync(path.join(staging, STAMP_FILE), `${stampOf(inputs)}\n`);
  rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  renameSync(staging, path.join(root, 'dist'));
}

function compilerOptions(ts) {
  const { options, errors } = ts.convertCompilerOptionsFromJson(COMPILER_OPTIONS, root);
  if (errors.length > 0) throw new Error(errors.map((error) => ts.flattenDiagnosticMessageText(error.messageText, '\n')).join('\n'));
  return options;
}
