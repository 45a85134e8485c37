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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireDataDirLock(dataDir: string): { release: () => void } {
  const file = path.join(dataDir, 'tandem.pid');
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      if (Number.isInteger(holder) && isAlive(holder)) throw new DataDirLockedError(dataDir, holder);
      // A lock left by a process that died (or by ourselves before a crash-restart) is stale.
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}
