import { describe, expect, it } from 'vitest';
import {
  checkConfirmer,
  checkPolicyApprover,
  checkRequesterOrApprover,
  checkResolver,
  checkRunbookSaver,
  checkScheduleRemover,
  checkVersion,
  planRisk,
  riskOfTool,
  type RequesterAction,
} from '../../src/agent/decisions/approval-policy.ts';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import type { RunRecord } from '../../src/agent/ports/run-store.ts';
import { spoken } from './support/spoken.ts';
import type { PolicyGate } from '../../src/agent/decisions/policy-approval.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import { approversGate } from '../helpers/policy-gate.ts';
import { spelled } from '../helpers/words.ts';

const risks: Record<string, 'read' | 'write' | 'destructive'> = { get: 'read', comment: 'write', merge: 'destructive' };
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
/** A click on a one-step plan of this risk. */
const approve = (gate: PolicyGate, risk: Risk, userId: string) =>
  checkPolicyApprover({ gate, userId, run, version: { version: 1, plan: planOf([TOOL_OF[risk]]) }, digest: 'd', riskOf: (t) => risks[t], earlier: [] });
const confirm = (gate: PolicyGate, risk: Risk, userId: string) =>
  checkConfirmer({ risk, userId, policy: { gate, run, step: { id: 's1', tool: TOOL_OF[risk], args: {}, rollback: false } } });

describe('approval policy', () => {
  it('takes the highest risk of all steps, rollback included; unknown tools count as destructive', () => {
    expect(planRisk(planOf(['get', 'get']), (t) => risks[t])).toBe('read');
    expect(planRisk(planOf(['get'], ['comment']), (t) => risks[t])).toBe('write');
    expect(planRisk(planOf(['get', 'mystery']), (t) => risks[t])).toBe('destructive');
  });

  it('rates a tool by its declared risk, and a tool nobody registered (or a risk it does not know) as destructive', () => {
    const tools = { riskOf: (name: string) => (name === 'odd' ? ('admin' as 'read') : risks[name]) };
    expect(riskOfTool(tools, 'get')).toBe('read');
    expect(riskOfTool(tools, 'comment')).toBe('write');
    expect(riskOfTool(tools, 'mystery')).toBe('destructive');
    expect(riskOfTool(tools, 'odd')).toBe('destructive');
  });

  it('every plan needs an approver, read-only ones too; destructive plans an approver other than the requester', async () => {
    const approvers = directory(['UAPP', 'UREQ']);
    const notApprover = {
      ok: false,
      error: { code: 'not-approver', message: 'Only approvers (TANDEM_APPROVERS) may approve a plan; you are not on the list.' },
    };
    const readOnly = await approve(approvers, 'read', 'UANY');
    expect(spoken(readOnly)).toEqual(notApprover);
    expect((await approve(approvers, 'read', 'UREQ')).ok).toBe(true);
    const outsider = await approve(approvers, 'write', 'UANY');
    expect(spoken(outsider)).toEqual(notApprover);
    expect((await approve(approvers, 'write', 'UREQ')).ok).toBe(true);
    const selfApproval = await approve(approvers, 'destructive', 'UREQ');
    expect(spoken(selfApproval)).toEqual({
      ok: false,
      error: {
        code: 'requester-may-not-approve-destructive',
        message: 'This plan has a destructive step, so an approver other than the person who asked must approve it.',
      },
    });
    expect((await approve(approvers, 'destructive', 'UAPP')).ok).toBe(true);
  });

  it('who may do what, in one table: every decision a person takes on a run, for the requester, an approver and a bystander', async () => {
    // UREQ asked; UAPP is an approver; UANY is neither. Each cell: allowed, or the refusal code.
    const approvers = directory(['UAPP']);
    const who = { requester: 'UREQ', approver: 'UAPP', bystander: 'UANY' } as const;
    const requesterActions: RequesterAction[] = ['reject', 'edit', 'revise', 'answer', 'cancel', 'abort'];
    const judge = async (check: (userId: string) => Promise<{ ok: true } | { ok: false; error: { code: string } }>) => {
      const row: Record<string, string> = {};
      for (const [role, userId] of Object.entries(who)) {
        const result = await check(userId);
        row[role] = result.ok ? 'allowed' : result.error.code;
      }
      return row;
    };
    const table: Record<string, Record<string, string>> = {};
    for (const action of requesterActions)
      table[action] = await judge((userId) => checkRequesterOrApprover({ action, userId, policy: { gate: approvers, run } }));
    table['approve write'] = await judge((userId) => approve(approvers, 'write', userId));
    table['approve destructive'] = await judge((userId) => approve(approvers, 'destructive', userId));
    table['confirm write'] = await judge((userId) => confirm(approvers, 'write', userId));
    table['confirm destructive'] = await judge((userId) => confirm(approvers, 'destructive', userId));
    table['resolve escalation'] = await judge((userId) => checkResolver({ userId, policy: { gate: approvers, run } }));
    table['save runbook'] = await judge((userId) => checkRunbookSaver({ userId, policy: { gate: approvers, run } }));
    table['remove schedule'] = await judge((userId) =>
      checkScheduleRemover({ userId, policy: { gate: approvers, schedule: { id: 'sc1', channel: 'C1', createdBy: who.requester } } }),
    );

    const steer = { requester: 'allowed', approver: 'allowed', bystander: 'not-requester-or-approver' };
    const approverOnly = { requester: 'not-approver', approver: 'allowed', bystander: 'not-approver' };
    expect(table).toEqual({
      reject: steer,
      edit: steer,
      revise: steer,
      answer: steer,
      cancel: steer,
      abort: steer,
      'approve write': approverOnly,
      'approve destructive': approverOnly,
      'confirm write': approverOnly,
      'confirm destructive': approverOnly,
      'resolve escalation': approverOnly,
      'save runbook': approverOnly,
      'remove schedule': { requester: 'allowed', approver: 'allowed', bystander: 'not-maker-or-approver' },
    });
    // Four-eyes: a requester who is also an approver still may not approve or confirm their own destructive step.
    const both = directory(['UREQ']);
    expect(spoken(await approve(both, 'destructive', 'UREQ'))).toEqual({
      ok: false,
      error: {
        code: 'requester-may-not-approve-destructive',
        message: 'This plan has a destructive step, so an approver other than the person who asked must approve it.',
      },
    });
    expect(spoken(await confirm(both, 'destructive', 'UREQ'))).toEqual({
      ok: false,
      error: {
        code: 'requester-may-not-confirm-destructive',
        message: 'This step is destructive, so an approver other than the person who asked must confirm what it acts on.',
      },
    });
    // A requester who is an approver confirms their own write step: only destructive work takes a second person.
    expect((await confirm(both, 'write', 'UREQ')).ok).toBe(true);
    expect(spoken(await checkRequesterOrApprover({ action: 'cancel', userId: 'UANY', policy: { gate: approvers, run } }))).toEqual({
      ok: false,
      error: { code: 'not-requester-or-approver', message: 'Only <@UREQ> (who asked) or an approver may cancel this run.' },
    });
  });

  it('a schedule is removed by whoever made it or an approver', async () => {
    expect(
      (await checkScheduleRemover({ userId: 'UMAKER', policy: { gate: directory(['UAPP']), schedule: { id: 'sc1', channel: 'C1', createdBy: 'UMAKER' } } })).ok,
    ).toBe(true);
    expect(
      (await checkScheduleRemover({ userId: 'UAPP', policy: { gate: directory(['UAPP']), schedule: { id: 'sc1', channel: 'C1', createdBy: 'UMAKER' } } })).ok,
    ).toBe(true);
    const refused = await checkScheduleRemover({
      userId: 'UANY',
      policy: { gate: directory(['UAPP']), schedule: { id: 'sc1', channel: 'C1', createdBy: 'UMAKER' } },
    });
    expect(refused.ok ? null : { code: refused.error.code, words: spelled(refused.error.message) }).toEqual({
      code: 'not-maker-or-approver',
      words: 'Only <@UMAKER>, who made this schedule, or an approver (TANDEM_APPROVERS) may remove it.',
    });
  });

  it('refuses a decision on a superseded plan version with a sentence saying so', () => {
    const run = { currentPlanVersion: 3 } as RunRecord;
    expect(checkVersion(run, 3).ok).toBe(true);
    expect(checkVersion(run, 2)).toEqual({
      ok: false,
      error: { code: 'plan-changed', message: 'The plan changed to v3 while you decided; look again. Your click on v2 ran nothing.' },
    });
  });
});
