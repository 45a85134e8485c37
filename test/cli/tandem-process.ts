import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const bin = path.resolve(import.meta.dirname, '../../bin/tandem.js');

export interface TandemProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout log line whose msg matches. */
  waitForLog(msg: string | RegExp, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Runs `node bin/tandem.js …` as an operator would, with only the given environment. */
export function runTandem(args: string[], env: Record<string, string>, cwd: string): TandemProcess {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitForLog(msg, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const line of out.split('\n')) {
          if (!line.startsWith('{')) continue;
          const entry = JSON.parse(line) as Record<string, unknown>;
          if (typeof entry.msg === 'string' && (typeof msg === 'string' ? entry.msg === msg : msg.test(entry.msg))) return entry;
        }
        if (child.exitCode !== null) throw new Error(`tandem exited (${child.exitCode}) before logging ${msg}:\n${out}\n${err}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for log ${msg}:\n${out}\n${err}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
