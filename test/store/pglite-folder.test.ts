import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunStore, DataDirLockedError, openDatabase } from '../../src/store/index.ts';

const writerScript = path.join(import.meta.dirname, 'pglite-writer.ts');

function startWriter(dataDir: string, count: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', writerScript, dataDir, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(`committed ${count}`)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`writer exited with ${code}: ${stderr}`)));
  });
}

describe('the embedded PGlite folder', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tandem-pglite-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses a second process on the same folder, then keeps every committed row after an unclean stop', async () => {
    const writer = await startWriter(path.join(dataDir, 'nested', 'data'), 60);
    try {
      // While the writer lives, opening the folder must fail clearly instead of silently losing data.
      const second = openDatabase({ dataDir: path.join(dataDir, 'nested', 'data') });
      await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
      await expect(second).rejects.toThrow(/in use by another Tandem process \(pid \d+\)/);
    } finally {
      writer.kill('SIGKILL');
      await new Promise((resolve) => writer.once('exit', resolve));
    }

    const reopened = await openDatabase({ dataDir: path.join(dataDir, 'nested', 'data') });
    try {
      await reopened.migrate();
      const runs = await createRunStore(reopened.db).listRuns({ limit: 500 });
      expect(runs).toHaveLength(60);
    } finally {
      await reopened.close();
    }
  }, 120_000);
});
