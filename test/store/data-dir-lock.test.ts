import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError } from '../../src/store/engine/data-dir-lock.ts';

const root = mkdtempSync(path.join(tmpdir(), 'tandem-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string, holderPid?: number): string {
  const dir = path.join(root, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  if (holderPid !== undefined) writeFileSync(path.join(dir, 'tandem.pid'), String(holderPid));
  return dir;
}

describe('the DATA_DIR lock', () => {
  it('is refused while its holder runs', () => {
    const sleeper = spawn('sleep', ['30']);
    try {
      expect(() => acquireDataDirLock(folder('live', sleeper.pid))).toThrow(DataDirLockedError);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('is taken over from a holder that died', async () => {
    const short = spawn('true');
    await new Promise((resolve) => short.once('exit', resolve));
    const lock = acquireDataDirLock(folder('dead', short.pid));
    lock.release();
  });

  it('is taken over from a killed holder still in the process table as a zombie', async () => {
    // Perl forks a child that exits at once and prints its pid; Perl never waits for it, so it stays a zombie. (A shell
    // that started a child and then became `sleep` left one too, unless it reaped the child before its exec: ENOENT.)
    const parent = spawn('perl', ['-e', 'my $child = fork; exit 0 unless $child; $| = 1; print "$child\\n"; sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const zombie = await new Promise<number>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
      await waitForZombie(zombie);
      const lock = acquireDataDirLock(folder('zombie', zombie));
      lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('is refused to a second open in the same process', () => {
    const dir = folder('same');
    const lock = acquireDataDirLock(dir);
    try {
      expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    } finally {
      lock.release();
    }
  });
});

async function waitForZombie(pid: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`pid ${pid} never became a zombie`);
}
