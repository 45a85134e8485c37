/**
 * `npm run bench`: every bench in turn, then one table of each figure, its goal and its baseline.
 * PostgreSQL benches run when TEST_DATABASE_URL (or DATABASE_URL) is set and are listed as skipped otherwise.
 * Figures are measured on this machine as it is: run nothing else meanwhile.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { FIGURES_PREFIX, formatValue, type Figure } from './support/figures.ts';

interface Bench {
  script: string;
  args?: string[];
  env?: Record<string, string>;
  needsPostgres?: boolean;
}

const BENCHES: Bench[] = [
  { script: 'dag.ts', args: ['pglite'] },
  { script: 'dag.ts', args: ['postgres'], needsPostgres: true },
  { script: 'replicas.ts', needsPostgres: true },
  { script: 'ack.ts' },
  // The product's path: every request stored in a real inbox before its ack.
  { script: 'ack.ts', env: { BENCH_INBOX: 'pglite' } },
  { script: 'ack.ts', env: { BENCH_INBOX: 'postgres' }, needsPostgres: true },
  { script: 'memory.ts' },
  // Issue 34: a store months old, then time and scale.
  { script: 'full-store.ts', args: ['pglite'] },
  { script: 'full-store.ts', args: ['postgres'], needsPostgres: true },
  { script: 'open-runs.ts', args: ['pglite'] },
  { script: 'open-runs.ts', args: ['postgres'], needsPostgres: true },
  { script: 'big-plans.ts' },
  { script: 'soak.ts', args: ['pglite'] },
  { script: 'soak.ts', args: ['postgres'], needsPostgres: true },
  // Issue 33: a run goes on within 5 s of its store coming back (each fault it cannot stage is skipped).
  { script: 'recovery.ts' },
];

const hasPostgres = Boolean(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL);

/** The figures a bench printed, and its exit code: a bench that fails a check after printing them (the soak's lost runs) keeps its rows. */
function runBench(bench: Bench): Promise<{ reports: { bench: string; figures: Figure[] }[]; code: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(bench.script, import.meta.url).pathname, ...(bench.args ?? [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...bench.env },
  });
  const reports: { bench: string; figures: Figure[] }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith(FIGURES_PREFIX)) reports.push(JSON.parse(line.slice(FIGURES_PREFIX.length)) as { bench: string; figures: Figure[] });
    else console.log(`  ${line}`);
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ reports, code })));
}

const rows: string[][] = [];
for (const bench of BENCHES) {
  const name = [bench.script, ...(bench.args ?? []), ...Object.entries(bench.env ?? {}).map(([key, value]) => `${key}=${value}`)].join(' ');
  if (bench.needsPostgres && !hasPostgres) {
    rows.push([name, 'skipped: set TEST_DATABASE_URL to a PostgreSQL server', '', '', '']);
    continue;
  }
  console.log(`\n${name}`);
  try {
    const { reports, code } = await runBench(bench);
    for (const report of reports) {
      for (const figure of report.figures) {
        rows.push([
          `${report.bench}: ${figure.name}`,
          formatValue(figure),
          figure.goal ?? '',
          figure.goal ? (figure.met ? 'met' : 'MISSED') : '',
          figure.baseline ?? '',
        ]);
      }
    }
    if (code !== 0) rows.push([name, `failed: exited with ${code}`, '', '', '']);
  } catch (error) {
    rows.push([name, `failed: ${(error as Error).message}`, '', '', '']);
  }
}

const header = ['figure', 'value', 'goal', '', 'baseline / context'];
const widths = header.map((_, column) => Math.max(header[column]!.length, ...rows.map((row) => row[column]!.length)));
const line = (cells: string[]) =>
  cells
    .map((cell, column) => cell.padEnd(widths[column]!))
    .join('  ')
    .trimEnd();
console.log(`\n${line(header)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}`);
for (const row of rows) console.log(line(row));
