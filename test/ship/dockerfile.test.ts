import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// No Docker engine runs here, so this checks what the image would do with the same files and commands.
const root = path.resolve(import.meta.dirname, '../..');
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
const instructions = dockerfile
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; engines: { node: string } };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : /\.(ts|js|mjs)$/.test(name) ? [full] : [];
  });
}

describe('Dockerfile', () => {
  it('builds every stage on Node 24 (the Active LTS), while the code keeps supporting Node 20.19+', () => {
    const bases = instructions.filter((i) => i.startsWith('FROM ')).map((i) => i.split(/\s+/)[1]);
    expect(new Set(bases)).toEqual(new Set(['node:24-bookworm-slim']));
    expect(pkg.engines.node).toBe('>=20.19');
  });

  it('builds in stages, installs production dependencies only, and runs as a non-root user with a health check', () => {
    expect(instructions.filter((i) => i.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    expect(instructions.some((i) => /^RUN npm ci --omit=dev/.test(i))).toBe(true);
    const users = instructions.filter((i) => i.startsWith('USER '));
    expect(users.at(-1)).toMatch(/^USER (?!root\b)\w+/);
    expect(instructions.find((i) => i.startsWith('HEALTHCHECK'))).toContain('/healthz');
    expect(dockerfile).toMatch(/DATA_DIR=\/data/);
    expect(instructions.some((i) => i.startsWith('VOLUME') && i.includes('/data'))).toBe(true);
  });

  it('copies only paths that exist', () => {
    for (const copy of instructions.filter((i) => i.startsWith('COPY ') && !i.includes('--from'))) {
      const sources = copy.split(/\s+/).slice(1, -1);
      for (const source of sources) expect(existsSync(path.join(root, source)), `${copy}: ${source}`).toBe(true);
    }
  });

  it('needs nothing from devDependencies at run time', () => {
    const allowed = new Set([...Object.keys(pkg.dependencies), ...builtinModules]);
    const missing = new Set<string>();
    for (const file of [...files(path.join(root, 'src')), ...files(path.join(root, 'bin'))]) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
        const spec = m[1] ?? m[2]!;
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        if (/^import\s+type\s/.test(m[0].trim())) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!allowed.has(name)) missing.add(`${path.relative(root, file)}: ${name}`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it('builds the compiled output in a stage of its own and ships it beside the sources its stamp is checked against', () => {
    expect(instructions).toContain('RUN node scripts/build.mjs');
    expect(instructions).toContain('COPY --from=build /app/dist ./dist');
    expect(instructions).toContain('COPY src ./src');
    // The stamp covers the lockfile too (the build bundles packages): without it in the image, the sources would run.
    const runtime = instructions.slice(instructions.findLastIndex((i) => i.startsWith('FROM ')));
    expect(runtime.some((i) => i.startsWith('COPY ') && !i.includes('--from') && i.split(/\s+/).includes('package-lock.json'))).toBe(true);
  });

  it('starts with the exact command of its CMD', () => {
    const cmd = instructions.find((i) => i.startsWith('CMD '))!;
    const argv = JSON.parse(cmd.slice(4)) as string[];
    expect(argv.slice(0, 2)).toEqual(['node', 'bin/tandem.js']);
    // `help` instead of `start` proves the entry point loads without a build step; start is tested end to end elsewhere.
    const out = execFileSync(process.execPath, [argv[1]!, 'help'], { cwd: root, encoding: 'utf8' });
    expect(out).toContain('Usage: tandem <command>');
  });
});
