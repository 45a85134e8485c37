/** The runbook catalog's port as the store implements it: every method, on both engines. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import type { RunbooksPort } from '../../src/runbooks/runbooks-port.ts';
import { createRunbooksStore, createRunStore } from '../../src/store/index.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

const planFor = (repo: string): Plan => ({
  schemaVersion: 1,
  goal: `check ${repo}`,
  confidence: 0.9,
  steps: [{ id: 's1', title: 'Read the repo', tool: 'github_get_repo', args: { repo }, dependsOn: [] }],
  rollback: [],
});

describe.each(ENGINES)('runbooks port contract on %s', (engine) => {
  let database: TestDatabase;
  let port: RunbooksPort;
  let runs: RunStore;
  let thread = 0;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    port = createRunbooksStore(database.db);
    runs = createRunStore(database.db);
  });
  afterAll(() => database.destroy());

  /** A run with one plan version per repo given, ended with `status`. */
  async function runWith(task: string, status: 'succeeded' | 'failed', repos: string[], finishedAt: Date) {
    const run = await runs.createRun({ task, requester: 'U1', conversation: { channel: 'C1', threadTs: `1.${++thread}` }, origin: 'mention' });
    for (const [index, repo] of repos.entries())
      await runs.addPlanVersion({ runId: run.id, plan: planFor(repo), authorKind: 'planner', authorId: 'm', parentVersion: index || null, reason: null });
    await runs.updateRun(run.id, { currentPlanVersion: repos.length, status, finishedAt });
    return run;
  }

  it('saves, lists by name, refuses a taken name, and removes', async () => {
    const saved = await port.save({
      name: 'check-repo',
      pattern: 'check {repo}',
      plan: planFor('{repo}'),
      params: ['repo'],
      source: 'run:run_1',
      preApproved: true,
      createdBy: 'U2',
    });
    expect(saved).toMatchObject({ ok: true, value: { name: 'check-repo', params: ['repo'], preApproved: true, createdBy: 'U2', source: 'run:run_1' } });
    await port.save({ name: 'a-first', pattern: 'first {x}', plan: planFor('{x}'), params: ['x'], source: 'run:run_2', preApproved: false, createdBy: null });

    expect((await port.listSaved()).map((runbook) => runbook.name)).toEqual(['a-first', 'check-repo']);
    expect(await port.save({ name: 'check-repo', pattern: 'other {repo}', plan: planFor('{repo}'), params: ['repo'], source: 'x', preApproved: false, createdBy: null })).toEqual({
      ok: false,
      error: 'a runbook named check-repo already exists',
    });
    expect(await port.remove('check-repo')).toBe(true);
    expect(await port.remove('check-repo')).toBe(false);
    expect((await port.listSaved()).map((runbook) => runbook.name)).toEqual(['a-first']);
  });

  it('leaves out a saved row whose plan no longer parses instead of failing the list', async () => {
    await port.save({ name: 'broken', pattern: 'broken {x}', plan: planFor('{x}'), params: ['x'], source: 'x', preApproved: false, createdBy: null });
    await database.db.execute(sql`update runbooks set plan = '{"steps": "not a list"}'::jsonb where name = 'broken'`);
    expect((await port.listSaved()).map((runbook) => runbook.name)).not.toContain('broken');
  });

  it("reads a run's task, status and last plan version; nothing for a run without a plan", async () => {
    const run = await runWith('check acme/api', 'succeeded', ['acme/old', 'acme/api'], new Date('2026-11-01T10:00:00Z'));
    expect(await port.runWithLastPlan(run.id)).toEqual({ task: 'check acme/api', status: 'succeeded', plan: planFor('acme/api') });
    const unplanned = await runs.createRun({ task: 'x', requester: 'U1', conversation: { channel: 'C1', threadTs: `1.${++thread}` }, origin: 'mention' });
    expect(await port.runWithLastPlan(unplanned.id)).toBeUndefined();
    expect(await port.runWithLastPlan('run_missing')).toBeUndefined();
  });

  it('lists the final plans of succeeded runs, newest finish first, up to the limit', async () => {
    await runWith('older success', 'succeeded', ['acme/one'], new Date('2026-11-02T10:00:00Z'));
    await runWith('a failure', 'failed', ['acme/two'], new Date('2026-11-05T10:00:00Z'));
    await runWith('newest success', 'succeeded', ['acme/three', 'acme/four'], new Date('2026-11-04T10:00:00Z'));
    const plans = await port.succeededRunPlans(2);
    expect(plans).toEqual([
      { task: 'newest success', plan: planFor('acme/four') },
      { task: 'older success', plan: planFor('acme/one') },
    ]);
  });
});
