import { describe, expect, it } from 'vitest';
import { runTandem } from '../cli/tandem-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

describe('tandem eval (the CLI verb)', () => {
  it('with no model and no --recorded, says what to set and fails', async () => {
    const cwd = await tempDir('tandem-eval-cli-');
    const tandem = runTandem(['eval'], {}, cwd);
    expect(await tandem.exited).toBe(1);
    expect(tandem.stderr()).toContain('PLANNER_MODEL');
    expect(tandem.stderr()).toContain('OPENAI_API_KEY');
    expect(tandem.stderr()).toContain('tandem eval --recorded');
    expect(tandem.stdout()).toBe('');
  });

  it('--recorded runs the golden suite offline from any folder, prints the table and totals, and exits 0', async () => {
    const cwd = await tempDir('tandem-eval-cli-');
    const tandem = runTandem(['eval', '--recorded'], {}, cwd);
    expect(await tandem.exited, tandem.stderr()).toBe(0);
    const out = tandem.stdout();
    expect(out).toMatch(/^task\s+result\s+outcome\s+valid 1st\s+repairs\s+steps\s+tools ok\s+esc\s+replans\s+tokens in\/out\s+plan ms\s+cost \$\s+total ms\s+source/);
    expect(out).toMatch(/release-cut-with-notify\s+pass\s+succeeded\s+yes\s+0\s+4\s+4\/4\s.*\sscripted\n/);
    expect(out).toMatch(/planner-fallback\s+pass\s+succeeded\s+no\s+2\+fb\s/);
    expect(out).toMatch(/sources: scripted \(\d+\)/);
    expect(out).toMatch(/tasks: (\d+), passed \1, failed 0/);
    expect(out).toMatch(/tool success rate: \d+\.\d% \(\d+ of \d+ calls\)/);
    expect(out).toMatch(/escalation rate: \d+\.\d%/);
    expect(out).not.toContain('FAIL');
    // The whole suite in a child process that first creates its own embedded database.
  }, 120_000);
});
