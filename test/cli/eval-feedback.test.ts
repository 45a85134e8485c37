import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migratedDataDir } from '../helpers/database.ts';
import { runTandem } from './tandem-process.ts';

const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-feedback-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('tandem eval --feedback', () => {
  it('summarises stored feedback without a model configured (none yet on a fresh store)', async () => {
    // A fresh store, made and migrated once per worker: the first start is cli.test's subject, not this one's.
    const dataDir = await migratedDataDir(path.join(cwd, 'data'));
    const tandem = runTandem(['eval', '--feedback'], { DATA_DIR: dataDir }, cwd);
    expect(await tandem.exited).toBe(0);
    expect(tandem.stdout()).toContain('no feedback yet');
    const json = runTandem(['eval', '--feedback', '--json'], { DATA_DIR: dataDir }, cwd);
    expect(await json.exited).toBe(0);
    expect(JSON.parse(json.stdout())).toEqual([]);
  }, 120_000);
});
