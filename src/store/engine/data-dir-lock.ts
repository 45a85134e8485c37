import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Two processes on one PGlite folder both open it and silently lose data; the second must refuse. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another Tandem process (pid ${pid}). Stop it, choose another DATA_DIR, ` +
        'or set DATABASE_URL to share one PostgreSQL between several processes.',
    );
  }
}

/**
 * True while `pid` is a running process. A killed process stays in the process table as a zombie
 * until its parent reaps it; it holds nothing, so it counts as gone (a supervisor restarting at once
 * must not be refused).
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (comm) S …"; comm may hold spaces or parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false; // no /proc (macOS): kill(0) already said it exists
  }
}

/** Folders this process holds: our own pid in a lock file of another folder is a previous run (pid 1 in a restarted container). */
const heldHere = new Set<string>();

function holdsLock(pid: number, file: string): boolean {
  if (pid === process.pid) return heldHere.has(file);
  return isProcessAlive(pid);
}

export function acquireDataDirLock(dataDir: string): { release: () => void } {
  const file = path.join(dataDir, 'tandem.pid');
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(file);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          heldHere.delete(file);
          rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      if (Number.isInteger(holder) && holdsLock(holder, file)) throw new DataDirLockedError(dataDir, holder);
      // A lock left by a process that died (or by ourselves before a crash-restart) is stale.
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}
