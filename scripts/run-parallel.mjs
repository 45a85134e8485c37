// `npm test`'s checks at once instead of one after another, and beside the tests: the type check and the
// linters are each one thread, and the tests leave about half of the machine's two cores idle while they
// wait on processes, timers and sockets (docs/decisions/040-npm-test-in-five-minutes.md). The unit tests run before,
// alone: beside the e2e run on a slower machine they were starved past their timeouts (decision 040, session 19).
//
//   node scripts/run-parallel.mjs typecheck lint lint:deps -- vitest run --project e2e --project store
//
// The names before `--` are npm scripts: each one's output is printed whole when it ends (never interleaved
// with another's). The command after `--`, if any, runs at the same time with its output streamed as it comes,
// so a long test run shows its progress. The exit code is the first failure's, or 0 when all passed.
import { spawn } from 'node:child_process';
import os from 'node:os';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = process.argv.slice(2);
const split = args.indexOf('--');
const scripts = split === -1 ? args : args.slice(0, split);
const live = split === -1 ? [] : args.slice(split + 1);

/**
 * Beside a live command the scripts run at a lower priority (10 nice steps below this script's, inherited by what
 * npm starts): they take the CPU the live tests leave idle, not the CPU a test's process start or timer needs on a
 * loaded machine. Relative, not nice 10 outright: under `nice -n 19 npm test` that would put them above the tests.
 * (The unit tests ran here too until session 19: lowered, a slower machine starved them past their timeouts; at the
 * live tests' priority they slowed the first starts of embedded stores past their 60 s. They now run first, alone.)
 */
const lowerPriority = (child) => {
  if (!live.length || child.pid === undefined) return;
  try {
    os.setPriority(child.pid, Math.min(19, os.getPriority() + 10));
  } catch {
    // Not permitted here: the checks run at the normal priority.
  }
};

/** An npm script, its output held until it ends. */
const buffered = (script) =>
  new Promise((resolve) => {
    const child = spawn(npm, ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    lowerPriority(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      process.stdout.write(`> npm run ${script}: ${verdict(code)}\n${output}`);
      resolve({ name: `npm run ${script}`, code: code ?? 1 });
    });
  });

/** A command (found on the PATH npm gives its scripts), its output streamed. */
const streamed = ([command, ...rest]) =>
  new Promise((resolve) => {
    const child = spawn(command, rest, { stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('close', (code) => resolve({ name: [command, ...rest].join(' '), code: code ?? 1 }));
  });

const verdict = (code) => (code === 0 ? 'passed' : `failed (exit ${code})`);

const results = await Promise.all([...scripts.map(buffered), ...(live.length ? [streamed(live)] : [])]);
// Repeated at the end, where a failed check is not lost above the tests' output.
if (live.length) for (const { name, code } of results) process.stdout.write(`> ${name}: ${verdict(code)}\n`);
process.exitCode = results.find(({ code }) => code !== 0)?.code ?? 0;
