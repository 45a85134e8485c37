import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanSchema, type Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { createRunbookCatalog } from '../../src/runbooks/catalog.ts';
import { createRunbooksStore, createRunStore } from '../../src/store/index.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

const registry = createToolRegistry(createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] }));

function collectingLogger() {
  const lines: { level: string; obj: object; msg?: string }[] = [];
  return {
    lines,
    info: (obj: object, msg?: string) => lines.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg?: string) => lines.push({ level: 'warn', obj, msg }),
  };
}

const releasePlan = PlanSchema.parse({
  goal: 'Publish release v2.4.0 of acme/api',
  confidence: 0.85,
  steps: [
    { id: 's1', title: 'Compare v2.3.0...main', tool: 'github_compare', args: { repo: 'acme/api', base: 'v2.3.0', head: 'main' } },
    { id: 's2', title: 'Create release v2.4.0', tool: 'github_create_release', dependsOn: ['s1'], args: { repo: 'acme/api', tag: 'v2.4.0', body: '{{steps.s1.output.url}}' } },
  ],
});

describe.each(ENGINES)('runbook catalog on %s', (engine) => {
  let database: TestDatabase;
  let store: RunStore;
  let dir: string;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    store = createRunStore(database.db);
    dir = await mkdtemp(path.join(tmpdir(), 'tandem-catalog-'));
    await writeFile(
      path.join(dir, 'check-health.yml'),
      'name: check-health\npattern: "check health of {url}"\npreApproved: true\nplan:\n  goal: "Check {url}"\n  steps:\n    - { id: s1, title: "GET {url}", tool: http_check, args: { url: "{url}" } }\n',
    );
    await writeFile(
      path.join(dir, 'restart.yml'),
      'name: restart\npattern: "restart {service}"\npreApproved: true\nplan:\n  goal: "Restart {service}"\n  steps:\n    - { id: s1, title: "Restart", tool: github_dispatch_workflow, args: { repo: "acme/ops", workflow: restart.yml, ref: main, inputs: { service: "{service}" } } }\n',
    );
    await writeFile(path.join(dir, 'broken.yml'), 'name: broken\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await database.destroy();
  });

  async function finishedRun(task: string, plan: Plan, status: 'succeeded' | 'failed' = 'succeeded'): Promise<string> {
    const run = await store.createRun({ task, requester: 'U1', conversation: { channel: 'C1', threadTs: `${Math.random()}` }, origin: 'mention' });
    const version = await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'openai:gpt-4o', parentVersion: null, reason: null });
    await store.updateRun(run.id, { currentPlanVersion: version.version, status, finishedAt: new Date() });
    return run.id;
  }

  it('matches file runbooks, honouring pre-approval only for read-only plans, and reports bad files', async () => {
    const logger = collectingLogger();
    const catalog = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir, logger, riskOf: registry.riskOf });
    expect(catalog.match('check health of http://127.0.0.1:9/healthz')).toMatchObject({ name: 'check-health', params: { url: 'http://127.0.0.1:9/healthz' }, preApproved: true });
    expect(catalog.match('restart billing')).toMatchObject({ name: 'restart', preApproved: false });
    expect(catalog.match('make coffee')).toBeUndefined();
    expect(catalog.problems()).toEqual([{ path: path.join(dir, 'broken.yml'), reason: expect.stringContaining('pattern') }]);
    expect(logger.lines.some((line) => line.msg === 'runbook-file-invalid')).toBe(true);
    // Without the tools' risks nothing is pre-approved: unknown counts as unsafe.
    const blind = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir, logger });
    expect(blind.match('check health of http://127.0.0.1:9/')?.preApproved).toBe(false);
  });

  it('saves a finished run as a runbook and plans a new task from it', async () => {
    const runId = await finishedRun('cut release v2.4.0 of acme/api since v2.3.0', releasePlan);
    const catalog = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir, logger: collectingLogger(), riskOf: registry.riskOf });
    const saved = await catalog.save({ runId, params: { tag: 'v2.4.0', repo: 'acme/api', previous: 'v2.3.0' }, createdBy: 'U7', name: 'release' });
    expect(saved).toMatchObject({ ok: true, value: { name: 'release', pattern: 'cut release {tag} of {repo} since {previous}', source: `run:${runId}`, createdBy: 'U7' } });

    const found = catalog.match('cut release v3.0.0 of acme/web since v2.9.0');
    expect(found?.name).toBe('release');
    expect(found?.plan.steps.map((step) => step.args)).toEqual([
      { repo: 'acme/web', base: 'v2.9.0', head: 'main' },
      { repo: 'acme/web', tag: 'v3.0.0', body: '{{steps.s1.output.url}}' },
    ]);
    // Another replica's catalog sees it too, from the database.
    const elsewhere = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir, logger: collectingLogger() });
    expect(elsewhere.list().map((runbook) => runbook.name)).toContain('release');

    expect(await catalog.save({ runId, params: { tag: 'v2.4.0' }, createdBy: 'U7', name: 'release' })).toEqual({ ok: false, error: 'a runbook named release already exists' });
    expect(await catalog.remove('release')).toBe(true);
    expect(catalog.match('cut release v3.0.0 of acme/web since v2.9.0')).toBeUndefined();
  });

  it('only saves runs that succeeded', async () => {
    const runId = await finishedRun('cut release v1 of acme/api since v0', releasePlan, 'failed');
    const catalog = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir, logger: collectingLogger() });
    expect(await catalog.save({ runId, params: { tag: 'v1' }, createdBy: 'U7' })).toEqual({ ok: false, error: expect.stringContaining('is failed') });
    expect(await catalog.save({ runId: 'run_missing', params: {}, createdBy: 'U7' })).toEqual({ ok: false, error: expect.stringContaining('no run run_missing') });
  });

  it('lets a file runbook win a name clash with a saved one, and says so', async () => {
    const runId = await finishedRun('check health of http://127.0.0.1:1/ twice', PlanSchema.parse({ goal: 'x', confidence: 1, steps: [{ id: 's1', title: 't', tool: 'wait', args: { seconds: 1 } }] }));
    const logger = collectingLogger();
    const catalog = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir: path.join(dir, 'absent'), logger });
    expect(await catalog.save({ runId, params: {}, createdBy: 'U7', name: 'check-health' })).toMatchObject({ ok: true });
    const merged = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir, logger });
    expect(merged.list().filter((runbook) => runbook.name === 'check-health').map((runbook) => runbook.source)).toEqual([`file:${path.join(dir, 'check-health.yml')}`]);
    expect(logger.lines.find((line) => line.msg?.startsWith('runbook-name-clash'))?.obj).toMatchObject({ name: 'check-health' });
    await catalog.remove('check-health');
  });

  it('offers the closest successful past plans as planner examples', async () => {
    await finishedRun('deploy main of acme/api to staging', PlanSchema.parse({ ...releasePlan, goal: 'staging deploy' }));
    await finishedRun('deploy main of acme/api to production', PlanSchema.parse({ ...releasePlan, goal: 'failed deploy' }), 'failed');
    await finishedRun('triage open pull requests in acme/api', PlanSchema.parse({ ...releasePlan, goal: 'triage' }));
    const catalog = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir, logger: collectingLogger() });
    const examples = await catalog.examples('deploy main of acme/api to production', 2);
    expect(examples.map((example) => example.plan.goal)).toEqual(['staging deploy', expect.any(String)]);
    expect(examples.map((example) => example.plan.goal)).not.toContain('failed deploy');
  });
});
