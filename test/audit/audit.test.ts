import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { NewApproval, RunStore } from '../../src/agent/ports/run-store.ts';
import { createRunStore, openDatabase } from '../../src/store/index.ts';
import { standardTools } from '../agent/support/fake-tools.ts';
import { makeHarness } from '../agent/support/harness.ts';
import { ScriptedLlm, plannerAnswer } from '../agent/support/scripted-llm.ts';
import { runTandem } from '../cli/tandem-process.ts';
import { useTestStore } from '../helpers/store.ts';
import { auditRuns } from '../../src/audit/audit.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { auditContextOf, auditViolations } from './support.ts';

const db = useTestStore();
const tools = standardTools().all;

const plan = (tool: string, rollbackTool?: string): Plan => ({
  schemaVersion: 1,
  goal: 'Do it',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Do it', tool, args: tool === 'read_thing' ? { key: 'k' } : tool === 'create_thing' ? { title: 't' } : { number: 7 }, dependsOn: [] },
  ],
  rollback: rollbackTool ? [{ id: 'r1', title: 'Undo', tool: rollbackTool, args: { number: 7 }, undoes: 's1' }] : [],
});

/** A run whose v1 ran its first step on the given approval (written as a buggy or hand-edited store would have it). */
async function ranOn(store: RunStore, runPlan: Plan, approval: Omit<NewApproval, 'runId' | 'planVersion'>, requester = 'UREQ') {
  const run = await store.createRun({ task: 'audit me', requester, conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
  await store.addPlanVersion({ runId: run.id, plan: runPlan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
  await store.updateRun(run.id, { currentPlanVersion: 1, status: 'executing' });
  await store.recordApproval({ runId: run.id, planVersion: 1, ...approval });
  const step = runPlan.steps[0]!;
  await store.createSteps(run.id, 1, [
    { stepId: step.id, kind: 'forward', title: step.title, tool: step.tool, risk: 'write', dependsOn: [], plannedArgs: step.args },
  ]);
  expect(await store.claimStep({ runId: run.id, planVersion: 1, stepId: step.id, owner: 'me', leaseMs: 1000, executedArgs: step.args })).toBeDefined();
  return run;
}

describe('tandem audit', () => {
  it('finds nothing in runs decided through the agent: approvals, four-eyes, auto-runs, a refused click', async () => {
    const merge = plannerAnswer({ steps: [{ id: 's1', tool: 'merge_thing', args: { number: 7 } }] });
    const read = plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'k' } }] });
    const h = makeHarness({
      store: db.store,
      tools,
      llm: new ScriptedLlm().on('planner', merge).on('planner', read),
      approvers: ['UREQ', 'UAPP'],
      settings: { autoRunReadOnly: true },
    });
    const merged = await h.start('merge 7', 'UREQ');
    expect((await h.agent.decide({ runId: merged.id, planVersion: 1, userId: 'UREQ', decision: 'approve' })).ok).toBe(false);
    expect((await h.agent.decide({ runId: merged.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).ok).toBe(true);
    const looked = await h.start('look', 'UREQ');
    await h.agent.idle();
    expect((await h.store.getRun(merged.id))?.status).toBe('succeeded');
    expect((await h.store.listApprovals(looked.id)).map((a) => [a.userId, a.via, a.why])).toEqual([['tandem:auto', 'auto', 'read-only plan']]);
    expect(await auditViolations(db.store, tools, ['UREQ', 'UAPP'], merged.id)).toEqual([]);
    expect(await auditViolations(db.store, tools, ['UREQ', 'UAPP'], looked.id)).toEqual([]);
  });

  it('prints a step that ran with no approval of its version', async () => {
    const run = await ranOn(db.store, plan('create_thing'), { userId: 'UAPP', decision: 'approved', need: 'approver' });
    await db.database.db.execute(sql`delete from approvals where run_id = ${run.id}`);
    expect(await auditViolations(db.store, tools, [], run.id)).toEqual([
      {
        runId: run.id,
        check: 'step-ran-without-approval',
        planVersion: 1,
        stepId: 's1',
        message: expect.stringMatching(/^s1 of v1 ran \(attempt 1, .*\) but no approval of v1 is recorded$/),
      },
    ]);
  });

  it('prints an approval the policy does not accept: an auto-run of a write, a need too low, a person not on the approver list', async () => {
    const auto = await ranOn(db.store, plan('create_thing'), {
      userId: 'tandem:auto',
      decision: 'approved',
      via: 'auto',
      need: 'anyone',
      why: 'read-only plan',
    });
    const low = await ranOn(db.store, plan('read_thing', 'merge_thing'), { userId: 'UAPP', decision: 'approved', need: 'approver' });
    const stranger = await ranOn(db.store, plan('create_thing'), { userId: 'USTRANGER', decision: 'approved', need: 'approver' });
    const found = async (runId: string) => (await auditViolations(db.store, tools, ['UAPP'], runId)).map((v) => `${v.check}: ${v.message}`);
    expect(await found(auto.id)).toEqual(["approval-not-allowed: v1 has write steps but ran without a person's approval (tandem:auto)"]);
    expect(await found(low.id)).toEqual(['approval-not-allowed: UAPP was checked as "approver" but v1 needs "approver-not-requester"']);
    expect(await found(stranger.id)).toEqual(['approval-not-allowed: v1 was approved by USTRANGER, who is not an approver (TANDEM_APPROVERS)']);
  });

  it('prints a destructive version (its rollback counted) approved only by its requester', async () => {
    const run = await ranOn(db.store, plan('read_thing', 'merge_thing'), { userId: 'UREQ', decision: 'approved', need: 'approver-not-requester' });
    expect((await auditViolations(db.store, tools, [], run.id)).map((v) => `${v.check}: ${v.message}`)).toEqual([
      'destructive-approved-by-requester: v1 has a destructive step and was approved only by its requester UREQ',
    ]);
  });
});

describe('tandem audit under TANDEM_REPOS', () => {
  const github = createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] });
  const context = { ...auditContextOf(github), repositories: ['acme/*'] };
  const audit = async (runId: string) => {
    const result = await auditRuns(db.store, context, { runId });
    return 'missing' in result ? [] : result.violations.map((v) => `${v.stepId} [${v.check}] ${v.message}`);
  };

  it("reports a step's request and an agent_task call that went outside the list, search queries included", async () => {
    const searchPlan: Plan = {
      schemaVersion: 1,
      goal: 'Look',
      confidence: 0.9,
      // What an older Tandem sent: a filled query that kept reference syntax, never judged.
      steps: [
        { id: 's1', title: 'Search', tool: 'github_search_issues', args: { query: 'repo:evil/secret {{steps.s1.output.text}}', limit: 20 }, dependsOn: [] },
      ],
      rollback: [],
    };
    const run = await ranOn(db.store, searchPlan, { userId: 'UAPP', decision: 'approved', need: 'approver' });
    const call = { planVersion: 1, stepId: 's1', attempt: 1 };
    await db.store.appendEvent(run.id, 'agent-call', { ...call, index: 0, tool: 'github_get_repo', args: { repo: 'evil/secret' }, ok: true, output: {} });
    await db.store.appendEvent(run.id, 'agent-call', {
      ...call,
      index: 1,
      tool: 'github_search_issues',
      args: { query: 'repo:acme/api OR is:open' },
      ok: true,
    });
    // Refused before anything was sent, and on the list: nothing to report.
    await db.store.appendEvent(run.id, 'agent-call', {
      ...call,
      index: 2,
      tool: 'github_get_repo',
      args: { repo: 'evil/x' },
      ok: false,
      refused: 'off the list',
    });
    await db.store.appendEvent(run.id, 'agent-call', { ...call, index: 3, tool: 'github_get_repo', args: { repo: 'ACME/web' }, ok: true, output: {} });

    expect(await audit(run.id)).toEqual([
      's1 [repository-outside-allow-list] s1 of v1 (attempt 1) sent github_search_issues query: evil/secret is not on the allow-list: TANDEM_REPOS allows only acme/*',
      's1 [repository-outside-allow-list] s1 of v1 (attempt 1) called github_get_repo repo: evil/secret is not on the allow-list: TANDEM_REPOS allows only acme/*',
      expect.stringMatching(/^s1 \[repository-outside-allow-list\] s1 of v1 \(attempt 1\) called github_search_issues query: it reaches every repository/),
    ]);
    expect((await auditRuns(db.store, auditContextOf(github), { runId: run.id })) as object).toMatchObject({ violations: [] });
  });
});

describe('the tandem audit command', () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-audit-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('prints each violation and exits 1; --run of a clean run exits 0', async () => {
    const dataDir = path.join(cwd, 'data');
    const database = await openDatabase({ dataDir });
    await database.migrate();
    const store = createRunStore(database.db);
    const bad = await ranOn(store, plan('github_create_release'), { userId: 'tandem:auto', decision: 'approved', via: 'auto', need: 'anyone' });
    const good = await ranOn(store, plan('github_create_release'), { userId: 'U2', decision: 'approved', need: 'approver' });
    await database.close();

    const all = runTandem(['audit'], { DATA_DIR: dataDir, TANDEM_APPROVERS: 'U2' }, cwd);
    expect(await all.exited).toBe(1);
    expect(all.stdout()).toBe(
      `${bad.id} v1  [approval-not-allowed]  v1 has write steps but ran without a person's approval (tandem:auto)\n1 violation(s) in 2 runs\n`,
    );
    const one = runTandem(['audit', '--run', good.id], { DATA_DIR: dataDir, TANDEM_APPROVERS: 'U2' }, cwd);
    expect(await one.exited).toBe(0);
    expect(one.stdout()).toBe('1 run checked: no violations\n');
  }, 240_000);
});
