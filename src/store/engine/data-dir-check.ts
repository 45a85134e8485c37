import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** PGlite's folder cannot be created or written (read-only, full, a path under a file): start-up stops with this one line. */
export class DataDirUnwritableError extends Error {
  override readonly name = 'DataDirUnwritableError';
  constructor(
    readonly dataDir: string,
    reason: string,
  ) {
    super(`DATA_DIR ${dataDir} is not writable: ${reason}. Free space or fix its permissions, choose another DATA_DIR, or set DATABASE_URL.`);
  }
}

/**
 * Creates the folder (`create`) and writes, syncs and removes a small file in it, so a read-only or full
 * disk is named at start-up instead of surfacing later as a failed statement deep inside PGlite.
 */
export function checkDataDirWritable(dataDir: string, create: () => void): void {
  try {
    create();
    const probe = path.join(dataDir, `.write-check-${process.pid}`);
    const fd = openSync(probe, 'w');
    try {
      writeSync(fd, Buffer.alloc(4096, 0x2e));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      rmSync(probe, { force: true });
    }
  } catch (error) {
    const cause = (error as NodeJS.ErrnoException).code === 'ENOENT' ? (firstRefusal(dataDir) ?? error) : error;
    throw new DataDirUnwritableError(dataDir, describe((cause as NodeJS.ErrnoException).code, cause));
  }
}

/**
 * A recursive mkdir on a read-only file system says ENOENT; creating the first missing folder alone
 * says why (EROFS, EACCES, ENOTDIR).
 */
function firstRefusal(dataDir: string): unknown {
  let missing = dataDir;
  while (!existsSync(path.dirname(missing)) && path.dirname(missing) !== missing) missing = path.dirname(missing);
  try {
    mkdirSync(missing);
    rmSync(missing, { recursive: true, force: true });
    return undefined;
  } catch (error) {
    return error;
  }
}

function describe(code: string | undefined, error: unknown): string {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `the disk is full (${code})`;
    case 'EROFS':
      return 'the file system is read-only (EROFS)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `a part of the path is a file, not a folder (${code})`;
    default:
      return error instanceof Error ? error.message.split('\n')[0]! : String(error);
  }
}
