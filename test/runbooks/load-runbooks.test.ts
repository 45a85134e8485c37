import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatePlan } from '../../src/agent/model/plan/plan-validation.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { loadRunbookFiles } from '../../src/runbooks/load-runbooks.ts';
import { matchRunbook } from '../../src/runbooks/match-runbook.ts';
import { isReadOnlyPlan } from '../../src/runbooks/read-only.ts';

const GOOD = `
name: check-health
pattern: "check health of {url}"
preApproved: true
plan:
  goal: "Check {url}"
  steps:
    - { id: s1, title: "GET {url}", tool: http_check, args: { url: "{url}" } }
`;

describe('loadRunbookFiles', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tandem-runbooks-'));
    await writeFile(path.join(dir, 'a-good.yml'), GOOD);
    await writeFile(path.join(dir, 'b-broken.yaml'), 'name: [unclosed\n  pattern: "x"\n');
    await writeFile(path.join(dir, 'c-no-plan.yml'), 'name: no-plan\npattern: "do {thing}"\n');
    await writeFile(path.join(dir, 'd-unknown-param.yml'), GOOD.replace('name: check-health', 'name: other').replace('"GET {url}"', '"GET {host}"'));
    await writeFile(path.join(dir, 'e-duplicate.yml'), GOOD);
    await writeFile(path.join(dir, 'notes.txt'), 'not a runbook');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('loads the good files and reports each bad one with its path and reason', async () => {
    const { runbooks, problems } = await loadRunbookFiles(dir);
    expect(runbooks.map((runbook) => runbook.name)).toEqual(['check-health']);
    expect(runbooks[0]).toMatchObject({ params: ['url'], preApproved: true, source: `file:${path.join(dir, 'a-good.yml')}` });
    // A runbook written by a person may leave confidence out.
    expect(runbooks[0]?.plan.confidence).toBe(0.9);
    expect(problems.map((problem) => path.basename(problem.path))).toEqual(['b-broken.yaml', 'c-no-plan.yml', 'd-unknown-param.yml', 'e-duplicate.yml']);
    expect(problems[0]?.reason).toContain('not valid YAML');
    expect(problems[1]?.reason).toContain('plan');
    expect(problems[2]?.reason).toContain('{host}');
    expect(problems[3]?.reason).toContain('already defines a runbook named check-health');
  });

  it('treats a missing folder as no runbooks', async () => {
    expect(await loadRunbookFiles(path.join(dir, 'absent'))).toEqual({ runbooks: [], problems: [] });
  });
});

describe('the shipped runbooks', () => {
  const shipped = fileURLToPath(new URL('../../runbooks', import.meta.url));
  const registry = createToolRegistry(createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] }));

  it.each([
    ['check health of http://127.0.0.1:8080/healthz', 'check-health', true],
    ['deploy v2.4.0 of acme/api to staging', 'deploy', false],
    ['triage open pull requests in acme/api', 'triage-pull-requests', true],
    ['cut release v2.5.0 of acme/api since v2.4.0', 'cut-release', false],
  ])('"%s" is planned from %s, valid against the built-in tools', async (task, name, readOnly) => {
    const { runbooks, problems } = await loadRunbookFiles(shipped);
    expect(problems).toEqual([]);
    const found = matchRunbook(task, runbooks);
    expect(found?.runbook.name).toBe(name);
    const checked = validatePlan(found!.plan, registry, { maxSteps: 20 });
    expect(checked).toEqual({ ok: true, value: expect.anything() });
    expect(isReadOnlyPlan(found!.plan, registry.riskOf)).toBe(readOnly);
    expect(JSON.stringify(found!.plan)).not.toMatch(/(?<!\{)\{[a-z]+\}(?!\})/);
  });
});
