import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Tmpfs {
  dir: string;
  /** Takes every free byte but `leaveBytes` with one file (`free()` removes it). */
  fill(leaveBytes?: number): void;
  free(): void;
  unmount(): void;
}

/**
 * A small file system of its own, to make a disk full or read-only for real (root can write through a
 * chmod). Needs `mount` as root; undefined where that is not allowed, so the caller can skip and say why.
 */
export function mountTmpfs(sizeMb: number, options: { readOnly?: boolean } = {}): Tmpfs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m${options.readOnly ? ',ro' : ''}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill(leaveBytes = 0) {
      const free = Number(execFileSync('df', ['--output=avail', '-B1', dir]).toString().trim().split('\n').pop());
      execFileSync('fallocate', ['-l', String(Math.max(4096, free - leaveBytes)), filler]);
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
