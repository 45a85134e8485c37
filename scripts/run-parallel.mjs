// `npm test`'s checks at once instead of one after another: the type check and the linters are each one
// thread, and the machine has two cores. Each script's output is printed whole when it ends (never
// interleaved); the exit code is the first failure's, or 0 when all passed.
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const results = await Promise.all(
  process.argv.slice(2).map(
    (script) =>
      new Promise((resolve) => {
        const child = spawn(npm, ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('close', (code) => {
          process.stdout.write(`> npm run ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`}\n${output}`);
          resolve(code ?? 1);
        });
      }),
  ),
);
process.exitCode = results.find((code) => code !== 0) ?? 0;
