import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalCovers, planRisk } from '../../src/agent/decisions/approval-policy.ts';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import type { ApprovalRecord, PlanVersionRecord } from '../../src/agent/ports/plans.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import { bindingApproval } from '../../src/agent/decisions/version-approval.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

// Issue 37: the executor's last check must bind an approval to the version it starts, not to the run.
const risks: Record<string, Risk> = { read_thing: 'read', create_thing: 'write', merge_thing: 'destructive' };
const riskOf = (tool: string) => risks[tool];
const versionOf = (version: number, steps: readonly string[], rollback: readonly string[] = []): PlanVersionRecord => ({
  runId: 'run-1',
  version,
  plan: PlanSchema.parse({
    goal: 'g',
    confidence: 1,
    steps: steps.map((tool, i) => ({ id: `s${i}`, title: 't', tool })),
    rollback: rollback.map((tool, i) => ({ id: `r${i}`, title: 't', tool })),
  }),
  authorKind: 'planner',
  authorId: 'model',
  parentVersion: null,
  reason: null,
  createdAt: new Date('2026-11-23T12:00:00Z'),
});
const approval = (fields: Partial<ApprovalRecord>): ApprovalRecord => ({
  runId: 'run-1',
  planVersion: 2,
  userId: 'UAPP',
  decision: 'approved',
  via: 'person',
  need: 'approver-not-requester',
  why: null,
  digest: null,
  createdAt: new Date('2026-11-23T12:00:00Z'),
  ...fields,
});
/** v2 of a plan whose rollback merges: destructive, so four-eyes. */
const v2 = versionOf(2, ['read_thing'], ['merge_thing']);
const judge = (approvals: ApprovalRecord[]) => {
  const found = bindingApproval(approvals, v2, 'UREQ', riskOf);
  return found.ok ? `covered by ${found.value.userId}` : `${found.error.code}: ${found.error.message}`;
};

describe('the approval that lets a version run', () => {
  it('in one table: approvals of other versions, rejections and approvals that do not cover count for nothing', () => {
    const rows: [string, ApprovalRecord[], string][] = [
      ['nothing recorded', [], 'no-approval: no approval of v2 is recorded'],
      ['an approval of v1 only', [approval({ planVersion: 1 })], 'no-approval: no approval of v2 is recorded'],
      ['an approval of v3 only', [approval({ planVersion: 3 })], 'no-approval: no approval of v2 is recorded'],
      ['a rejection of v2', [approval({ decision: 'rejected' })], 'no-approval: no approval of v2 is recorded'],
      ['another approver on v2', [approval({})], 'covered by UAPP'],
      [
        'the requester on v2, then another approver',
        [approval({ userId: 'UREQ' }), approval({ userId: 'UAPP2' }), approval({ userId: 'UAPP3' })],
        'covered by UAPP2',
      ],
      [
        'none of the approvals of v2 covers (each reason given)',
        [approval({ userId: 'UREQ' }), approval({ userId: 'tandem:auto', via: 'auto', need: null })],
        "none-covers: v2 is destructive and was approved only by its requester UREQ; v2 has destructive steps but ran without a person's approval (tandem:auto)",
      ],
    ];
    expect(rows.map(([name, approvals]) => [name, judge(approvals)])).toEqual(rows.map(([name, , expected]) => [name, expected]));
  });

  it('counts the rollback steps in the version’s risk: a read-only forward plan with a destructive rollback takes four eyes', () => {
    expect(judge([approval({ need: 'approver' })])).toBe('none-covers: UAPP was checked as "approver" but v2 needs "approver-not-requester"');
    const readOnly = versionOf(2, ['read_thing'], ['read_thing']);
    expect(bindingApproval([approval({ need: 'approver' })], readOnly, 'UREQ', riskOf).ok).toBe(true);
  });

  it('for any approvals recorded, the version runs exactly when an approval of that very version covers its risk', () => {
    const record = fc.record({
      planVersion: fc.constantFrom(1, 2, 3),
      userId: fc.constantFrom('UREQ', 'UAPP', 'tandem:auto'),
      decision: fc.constantFrom('approved' as const, 'rejected' as const),
      via: fc.constantFrom('person' as const, 'auto' as const),
      need: fc.constantFrom('anyone' as const, 'approver' as const, 'approver-not-requester' as const, null),
    });
    const plan = fc.tuple(fc.array(fc.constantFrom('read_thing', 'create_thing', 'merge_thing'), { maxLength: 3 }), fc.constantFrom([], ['merge_thing']));
    fc.assert(
      fc.property(fc.array(record, { maxLength: 6 }), plan, (fields, [steps, rollback]) => {
        const version = versionOf(2, steps, rollback);
        const approvals = fields.map((field) => approval(field));
        const found = bindingApproval(approvals, version, 'UREQ', riskOf);
        const risk = planRisk(version.plan, riskOf);
        const covering = approvals.filter((a) => a.planVersion === 2 && a.decision === 'approved' && approvalCovers(a, risk, 'UREQ').ok);
        expect(found.ok ? found.value : null).toBe(covering[0] ?? null);
      }),
    );
  });
});

describe("the executor's check before a version's first step", () => {
  const db = useMemoryStore();
  let h: Harness;
  afterEach(() => {
    h.llm.assertDone();
    expect(h.errors).toEqual([]);
  });
  const plan = plannerAnswer({
    steps: [{ id: 's1', tool: 'read_thing', args: { key: 'pr' } }],
    rollback: [{ id: 'r1', tool: 'merge_thing', args: { number: 7 } }],
  });

  /** A run at v1 moved to executing behind the decision path's back (a bug, or a hand-edited database), with `approvals` recorded. */
  async function forcedRun(approvals: { planVersion: number; userId: string }[]) {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', plan), approvers: ['UREQ', 'UAPP'], soleOwner: true });
    const run = await h.start('look at PR 7', 'UREQ');
    for (const { planVersion, userId } of approvals)
      await h.store.recordApproval({ runId: run.id, planVersion, userId, decision: 'approved', need: 'approver-not-requester' });
    const forced = await h.store.decide({
      runId: run.id,
      planVersion: 1,
      from: ['awaiting-approval'],
      to: 'executing',
      event: { type: 'plan-approved', data: { version: 1, by: 'forced' } },
    });
    expect(forced.ok).toBe(true);
    await h.agent.resume();
    await h.agent.idle();
    return { run, tools };
  }

  it('an approval of another version of the run starts nothing: the run pauses and a person is told why', async () => {
    const { run, tools } = await forcedRun([{ planVersion: 2, userId: 'UAPP' }]);
    expect(tools.read.calls).toEqual([]);
    expect(await h.store.listSteps(run.id)).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('paused');
    const escalations = h.surface.of(run.id, 'escalation');
    expect(escalations.map((message) => ({ ...message.escalation, answers: message.offer.answers }))).toEqual([
      expect.objectContaining({
        kind: 'not-approved',
        planVersion: 1,
        stepId: null,
        message: 'Plan v1 has no approval that lets it run (no approval of v1 is recorded); nothing was started.',
        answers: ['replan', 'abort'],
      }),
    ]);
  });

  it('an approval of that version by another approver lets it run', async () => {
    const { run, tools } = await forcedRun([{ planVersion: 1, userId: 'UAPP' }]);
    expect(tools.read.calls).toHaveLength(1);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    expect(h.surface.of(run.id, 'escalation')).toEqual([]);
  });
});
