import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTandem } from './tandem-process.ts';

const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-prune-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('tandem prune --older-than', () => {
  it('a cut-off further back than a hundred years is a usage mistake in one line (exit 2), not a database error', async () => {
    const prune = runTandem(['prune', '--older-than', '999999'], { DATA_DIR: path.join(cwd, 'data') }, cwd);
    expect(await prune.exited).toBe(2);
    expect(prune.stderr()).toBe('tandem: --older-than: expected at most 36500 days (a hundred years), e.g. 90\n');
  }, 60_000);
});
