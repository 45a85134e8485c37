import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.ts';

// A small checkout with the real bin/ and build script: what `node bin/tandem.js` runs, compiled or the
// sources, as the sources change. Each step starts node (and TypeScript for a build): slow on a loaded machine. Its src/cli/main.ts says which file ran and what it was written to say.
const root = path.resolve(import.meta.dirname, '../..');

async function checkout(): Promise<{ dir: string; write(name: string, text: string): void; run(): string; build(...args: string[]): string }> {
  const dir = await tempDir('tandem-compiled-');
  cpSync(path.join(root, 'bin'), path.join(dir, 'bin'), { recursive: true });
  mkdirSync(path.join(dir, 'scripts'));
  cpSync(path.join(root, 'scripts/build.mjs'), path.join(dir, 'scripts/build.mjs'));
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const write = (name: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  };
  write('src/cli/greeting.ts', "export const greeting: string = 'first';\n");
  write(
    'src/cli/main.ts',
    "import { greeting } from './greeting.ts';\nconsole.log(`${greeting} ${import.meta.url.endsWith('.js') ? 'compiled' : 'sources'}`);\n",
  );
  return {
    dir,
    write,
    run: () => execFileSync(process.execPath, [path.join(dir, 'bin/tandem.js')], { encoding: 'utf8' }).trim(),
    build: (...args: string[]) => execFileSync(process.execPath, [path.join(dir, 'scripts/build.mjs'), ...args], { encoding: 'utf8', stdio: 'pipe' }),
  };
}

describe('bin/tandem.js runs the compiled output only while it was built from the sources on disk', () => {
  it('runs the sources without a build, the build once made, and the sources again as soon as one changes', async () => {
    const app = await checkout();
    expect(app.run()).toBe('first sources');
    app.build();
    expect(app.run()).toBe('first compiled');

    app.write('src/cli/greeting.ts', "export const greeting: string = 'second';\n");
    expect(app.run()).toBe('second sources');
    app.build('--if-stale');
    expect(app.run()).toBe('second compiled');
  }, 120_000);

  it('treats a new file, a deleted file or a build without its stamp as stale', async () => {
    const app = await checkout();
    app.build();
    app.write('src/cli/extra.ts', 'export {};\n');
    expect(app.run()).toBe('first sources');
    rmSync(path.join(app.dir, 'src/cli/extra.ts'));
    expect(app.run()).toBe('first compiled');
    rmSync(path.join(app.dir, 'dist/.source-stamp'));
    expect(app.run()).toBe('first sources');
  }, 120_000);
});
