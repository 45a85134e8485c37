/**
 * PGlite's DATA_DIR cannot be written: start-up stops with one line that names the folder and why,
 * before PGlite is started. A path under a file runs everywhere; a full and a read-only disk need a
 * tmpfs of their own (root), and are skipped with a message elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirUnwritableError, openDatabase } from '../../src/store/index.ts';
import { mountTmpfs } from '../helpers/tmpfs.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'tandem-datadir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const full = mountTmpfs(1);
const readOnly = mountTmpfs(1, { readOnly: true });
if (!full || !readOnly) console.log('test/infra/data-dir-startup.test.ts: full and read-only disks skipped: mounting a tmpfs needs root');
afterAll(() => {
  full?.unmount();
  readOnly?.unmount();
});

describe('a DATA_DIR that cannot be written', () => {
  it('is named in one line by `tandem start` when a part of its path is a file', () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const started = spawnSync(process.execPath, [path.resolve('bin/tandem.js'), 'start'], {
      env: { PATH: process.env.PATH, HOME: dir, DATA_DIR: path.join(file, 'data'), SLACK_BOT_TOKEN: 'xoxb-x', SLACK_SIGNING_SECRET: 's', PORT: '0' },
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr.trim().split('\n')).toEqual([
      `tandem: DATA_DIR ${path.join(file, 'data')} is not writable: a part of the path is a file, not a folder (ENOTDIR). Free space or fix its permissions, choose another DATA_DIR, or set DATABASE_URL.`,
    ]);
  }, 60_000);

  it.skipIf(!full)('says the disk is full', async () => {
    full!.fill();
    await expect(openDatabase({ dataDir: path.join(full!.dir, 'data') })).rejects.toThrow(
      new DataDirUnwritableError(path.join(full!.dir, 'data'), 'the disk is full (ENOSPC)'),
    );
  });

  it.skipIf(!readOnly)('says the file system is read-only', async () => {
    await expect(openDatabase({ dataDir: path.join(readOnly!.dir, 'data') })).rejects.toThrow(
      /^DATA_DIR .* is not writable: the file system is read-only \(EROFS\)/,
    );
  });
});
