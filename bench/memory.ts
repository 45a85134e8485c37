/**
 * Idle memory of the real process: `node bin/tandem.js start` with Slack tokens pointed at a fake Web API,
 * on PGlite (first start in an empty DATA_DIR, then a reopen) and on PostgreSQL when TEST_DATABASE_URL is set.
 * Like `npm start`, it builds first when the build is stale, so the bot runs compiled; it also measures the
 * sources run through tsx on PostgreSQL (a checkout never built, or installed without dev dependencies).
 * Run: npx tsx bench/memory.ts. Prints RSS after the process has been idle for IDLE_MS.
 * Goals: PostgreSQL < 150 MB; PGlite < 400 MB on first start and < 250 MB on reopen.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SlackFakeServer } from '../src/workspace/slack-fake/index.ts';
import { below, printFigures, type Figure } from './support/figures.ts';
import { freshPostgres } from './support/fresh-postgres.ts';

const IDLE_MS = 3_000;
const ROOT = path.resolve(import.meta.dirname, '..');
const COMPILED = [path.join(ROOT, 'bin/tandem.js'), 'start'];
const SOURCES = ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'start'];

async function rssAfterIdle(env: Record<string, string>, argv = COMPILED): Promise<number> {
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  try {
    await waitForHealth(env.PORT!, child, () => output);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function waitForHealth(port: string, child: { exitCode: number | null }, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`tandem exited early:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`tandem did not become healthy:\n${output()}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function rss(name: string, megabytes: number, goalMb: number): Figure {
  return { name, value: megabytes, unit: 'MB', ...below(goalMb)(megabytes) };
}

execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
const fake = await new SlackFakeServer({ token: 'xoxb-bench' }).start();
const slack = { SLACK_BOT_TOKEN: 'xoxb-bench', SLACK_SIGNING_SECRET: 'bench-secret', SLACK_API_URL: fake.apiUrl, LOG_LEVEL: 'warn' };
const dataDir = await mkdtemp(path.join(tmpdir(), 'tandem-memory-'));
const figures: Figure[] = [];
try {
  const port = String(20_000 + Math.floor(Math.random() * 20_000));
  const pglite = { ...slack, DATA_DIR: dataDir, PORT: port };
  figures.push(rss('idle RSS, PGlite first start', await rssAfterIdle(pglite), 400));
  figures.push(rss('idle RSS, PGlite reopen', await rssAfterIdle(pglite), 250));
  const postgres = await freshPostgres();
  if (postgres) {
    try {
      figures.push(rss('idle RSS, PostgreSQL', await rssAfterIdle({ ...slack, DATABASE_URL: postgres.url, PORT: port }), 150));
      const fromSources = await rssAfterIdle({ ...slack, DATABASE_URL: postgres.url, PORT: port }, SOURCES);
      figures.push({ name: 'idle RSS, PostgreSQL, sources through tsx (no build)', value: fromSources, unit: 'MB' });
    } finally {
      await postgres.drop();
    }
  }
} finally {
  await fake.stop();
  await rm(dataDir, { recursive: true, force: true });
}
printFigures('memory', figures);
