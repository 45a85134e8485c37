import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Global setup of the projects whose tests start `node bin/tandem.js` (docs/decisions/029-fast-inner-loop.md):
 * compiles src/ to dist/ once, as `npm start` does before it starts the bot, unless dist/ is already current.
 * Every process a test then starts runs the compiled output that operators run, and skips tsx's loader: about
 * a second less per start on this machine. bin/tandem.js still runs the sources whenever they differ from the
 * build (a file edited while tests run), so a stale build is never what a test exercises.
 */
export function setup(): void {
  const root = path.resolve(import.meta.dirname, '../..');
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
}
