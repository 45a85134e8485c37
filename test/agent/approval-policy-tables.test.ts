import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  approvalCovers,
  approvalNeed,
  checkConfirmer,
  checkRequesterOrApprover,
  checkResolver,
  checkRunbookSaver,
  isAutoApproval,
  knownRisk,
  needsReapproval,
  planRisk,
  policyAllowsAutoRun,
  type RequesterAction,
} from '../../src/agent/decisions/approval-policy.ts';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import type { ApprovalRecord } from '../../src/agent/ports/plans.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import { spoken } from './support/spoken.ts';
import { approversGate } from '../helpers/policy-gate.ts';

const risks: Record<string, Risk> = { get: 'read', comment: 'write', merge: 'destructive' };
const riskOf = (tool: string) => risks[tool];
const ORDER: Risk[] = ['read', 'write', 'destructive'];
const planOf = (tools: string[], rollback: string[] = []) =>
  PlanSchema.parse({
    goal: 'g',
    confidence: 1,
    steps: tools.map((tool, i) => ({ id: `s${i}`, title: 't', tool })),
    rollback: rollback.map((tool, i) => ({ id: `r${i}`, title: 't', tool })),
  });
/** TANDEM_APPROVERS as the built-in policy: what every check asks. */
const directory = (ids: string[]) => approversGate(ids);
const run = { id: 'run_1', requester: 'UREQ', conversation: { channel: 'C1', threadTs: '1700000000.000100' } };
const TOOL_OF: Record<Risk, string> = { read: 'get', write: 'comment', destructive: 'merge' };

describe("a plan's risk", () => {
  it('is the highest risk of any step, wherever it stands among steps and rollback steps (issue 37: a plan [merge, get] is not read-only)', () => {
    const tool = fc.constantFrom('get', 'comment', 'merge', 'mystery');
    fc.assert(
      fc.property(fc.array(tool, { maxLength: 6 }), fc.array(tool, { maxLength: 3 }), (steps, rollback) => {
        const all = [...steps, ...rollback].map((name) => risks[name] ?? 'destructive');
        const highest = all.reduce<Risk>((max, risk) => (ORDER.indexOf(risk) > ORDER.indexOf(max) ? risk : max), 'read');
        expect(planRisk(planOf(steps, rollback), riskOf)).toBe(highest);
      }),
    );
    expect(planRisk(planOf(['merge', 'get']), riskOf)).toBe('destructive');
    expect(planRisk(planOf(['comment', 'get', 'get']), riskOf)).toBe('write');
    expect(planRisk(planOf([]), riskOf)).toBe('read');
  });

  it('counts a risk this code does not know as destructive, and passes the three it knows through', () => {
    const table = [
      ['read', 'read'],
      ['write', 'write'],
      ['destructive', 'destructive'],
      ['admin', 'destructive'],
      ['READ', 'destructive'],
      [undefined, 'destructive'],
      [null, 'destructive'],
      [0, 'destructive'],
    ] as const;
    expect(table.map(([value]) => knownRisk(value))).toEqual(table.map(([, risk]) => risk));
  });
});

describe('what each risk asks for', () => {
  it('in one table: who approves, whether it may run without a click, whether a new version needs approving again', async () => {
    const autoRuns = (risk: Risk, autoRunReadOnly: boolean) =>
      policyAllowsAutoRun({ gate: approversGate([], { autoRunReadOnly }), run, version: { version: 1, plan: planOf([TOOL_OF[risk]]) }, digest: 'd', riskOf });
    const table = await Promise.all(
      ORDER.map(async (risk) => ({
        risk,
        need: approvalNeed(risk),
        autoRun: await autoRuns(risk, true),
        autoRunWhenOff: await autoRuns(risk, false),
        reapproval: needsReapproval(risk),
      })),
    );
    expect(table).toEqual([
      { risk: 'read', need: 'approver', autoRun: true, autoRunWhenOff: false, reapproval: false },
      { risk: 'write', need: 'approver', autoRun: false, autoRunWhenOff: false, reapproval: true },
      { risk: 'destructive', need: 'approver-not-requester', autoRun: false, autoRunWhenOff: false, reapproval: true },
    ]);
  });
});

const approval = (fields: Partial<ApprovalRecord>): ApprovalRecord => ({
  runId: 'run-1',
  planVersion: 2,
  userId: 'UAPP',
  decision: 'approved',
  via: 'person',
  need: 'approver',
  why: null,
  digest: null,
  createdAt: new Date('2026-11-23T12:00:00Z'),
  ...fields,
});

describe('whether a recorded approval lets a version run (the executor and `tandem audit`)', () => {
  it('tells an auto-run by its `via`, or for rows from before that column by a rule name at the start of the user id', () => {
    const table = [
      [{ via: 'auto', userId: 'U1' }, true],
      [{ via: 'person', userId: 'tandem:auto-run' }, true],
      [{ via: 'person', userId: 'runbook:release' }, true],
      [{ via: 'person', userId: 'U1' }, false],
      [{ via: 'person', userId: 'Utandem:x' }, false],
      [{ via: 'person', userId: 'tandem' }, false],
      [{ via: 'person', userId: 'runbooks:x' }, false],
    ] as const;
    expect(table.map(([row]) => isAutoApproval(row))).toEqual(table.map(([, auto]) => auto));
  });

  it('in one table: every reason an approval does not cover a version, in the words the audit shows', () => {
    const rows: [string, ApprovalRecord, Risk, string][] = [
      ['a rejection', approval({ decision: 'rejected', userId: 'UREJ' }), 'read', 'rejected: v2 was rejected by UREJ'],
      ['an auto-run of a read-only version', approval({ via: 'auto', userId: 'tandem:auto', need: null }), 'read', 'covers'],
      [
        'an auto-run of a version with writes',
        approval({ via: 'auto', userId: 'tandem:auto', need: null }),
        'write',
        "auto-run-not-read-only: v2 has write steps but ran without a person's approval (tandem:auto)",
      ],
      [
        'an old auto-run row of a destructive version',
        approval({ via: 'person', userId: 'runbook:cleanup', need: null }),
        'destructive',
        "auto-run-not-read-only: v2 has destructive steps but ran without a person's approval (runbook:cleanup)",
      ],
      ['an approver for a write', approval({ need: 'approver' }), 'write', 'covers'],
      ['a row from before the need was recorded, for a write', approval({ need: null }), 'write', 'covers'],
      [
        'a row from before the need was recorded, for destructive work',
        approval({ need: null }),
        'destructive',
        'checked-for-lower-need: UAPP was checked as "approver" but v2 needs "approver-not-requester"',
      ],
      [
        'an old "anyone" click, for a write',
        approval({ need: 'anyone' }),
        'write',
        'checked-for-lower-need: UAPP was checked as "anyone" but v2 needs "approver"',
      ],
      ['a four-eyes check, for a write', approval({ need: 'approver-not-requester' }), 'write', 'covers'],
      ['another approver, for destructive work', approval({ need: 'approver-not-requester' }), 'destructive', 'covers'],
      [
        'the requester, for destructive work',
        approval({ need: 'approver-not-requester', userId: 'UREQ' }),
        'destructive',
        'approved-only-by-requester: v2 is destructive and was approved only by its requester UREQ',
      ],
      ['the requester, for a write', approval({ need: 'approver', userId: 'UREQ' }), 'write', 'covers'],
    ];
    const judged = rows.map(([name, record, risk]) => {
      const covers = approvalCovers(record, risk, 'UREQ');
      return [name, covers.ok ? 'covers' : `${covers.error.code}: ${covers.error.message}`];
    });
    expect(judged).toEqual(rows.map(([name, , , expected]) => [name, expected]));
  });
});

describe('the words of each refusal, as a person reads them', () => {
  const approvers = directory(['UAPP']);

  it('stopping or steering a run names the requester and the action refused', async () => {
    const actions: [RequesterAction, string][] = [
      ['reject', 'reject this plan'],
      ['edit', 'edit this plan'],
      ['revise', 'ask for a revision of this plan'],
      ['answer', "answer this run's question"],
      ['cancel', 'cancel this run'],
      ['abort', 'abort this run'],
    ];
    for (const [action, what] of actions) {
      expect(spoken(await checkRequesterOrApprover({ action, userId: 'UANY', policy: { gate: approvers, run } }))).toEqual({
        ok: false,
        error: { code: 'not-requester-or-approver', message: `Only <@UREQ> (who asked) or an approver may ${what}.` },
      });
    }
  });

  it('resolving an escalation, saving a runbook and confirming a target each say what only approvers may do', async () => {
    expect(spoken(await checkResolver({ userId: 'UANY', policy: { gate: approvers, run } }))).toEqual({
      ok: false,
      error: { code: 'not-approver', message: 'Only approvers (TANDEM_APPROVERS) may decide how an escalated run continues.' },
    });
    expect(spoken(await checkRunbookSaver({ userId: 'UANY', policy: { gate: approvers, run } }))).toEqual({
      ok: false,
      error: {
        code: 'not-approver',
        message: 'Only approvers (TANDEM_APPROVERS) may save a runbook: it plans later tasks without a model. Ask one of them to save it.',
      },
    });
    expect(
      spoken(
        await checkConfirmer({
          risk: 'write',
          userId: 'UANY',
          policy: { gate: approvers, run, step: { id: 's1', tool: 'comment', args: {}, rollback: false } },
        }),
      ),
    ).toEqual({
      ok: false,
      error: { code: 'not-approver', message: 'Only approvers (TANDEM_APPROVERS) may confirm what this step acts on; you are not on the list.' },
    });
  });
});
