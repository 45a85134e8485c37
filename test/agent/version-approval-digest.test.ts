/**
 * The digest half of the executor's last check, from the module's own tests: an approval binds to the
 * content it recorded (an approval from before digests, to the version number only), and a rollback step
 * is stopped only by a change of content. Words as `tandem show` and the escalation print them.
 */
import { describe, expect, it } from 'vitest';
import type { AgentContext } from '../../src/agent/context.ts';
import { bindingApproval, rollbackContentChanged } from '../../src/agent/decisions/version-approval.ts';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import { planDigest } from '../../src/agent/model/plan/plan-digest.ts';
import type { ApprovalRecord, PlanVersionRecord, RunRecord } from '../../src/agent/ports/run-store.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';

const risks: Record<string, Risk> = { read_thing: 'read', create_thing: 'write' };
const riskOf = (tool: string) => risks[tool];
const v1: PlanVersionRecord = {
  runId: 'run-1',
  version: 1,
  plan: PlanSchema.parse({ goal: 'g', confidence: 1, steps: [{ id: 's1', title: 't', tool: 'create_thing', args: { title: 'notes' } }], rollback: [] }),
  authorKind: 'planner',
  authorId: 'model',
  parentVersion: null,
  reason: null,
  createdAt: new Date('2026-11-27T00:00:00Z'),
};
const NOW = 'a'.repeat(64);
const BEFORE = 'b'.repeat(64);
const approval = (fields: Partial<ApprovalRecord>): ApprovalRecord => ({
  runId: 'run-1',
  planVersion: 1,
  userId: 'UAPP',
  decision: 'approved',
  via: 'person',
  need: 'approver',
  why: null,
  digest: NOW,
  createdAt: new Date('2026-11-27T00:00:00Z'),
  ...fields,
});
const judge = (approvals: ApprovalRecord[], digest: string | undefined) => {
  const found = bindingApproval(approvals, v1, 'UREQ', riskOf, digest);
  return found.ok ? `covered by ${found.value.userId}` : `${found.error.code}: ${found.error.message}`;
};

describe('an approval bound to the content it saw', () => {
  it.each([
    ['the same digest', [approval({})], NOW, 'covered by UAPP'],
    ['an approval from before digests', [approval({ digest: null })], NOW, 'covered by UAPP'],
    ['no digest asked for (the audit of an old row)', [approval({ digest: BEFORE })], undefined, 'covered by UAPP'],
    [
      'content changed since the approval',
      [approval({ digest: BEFORE })],
      NOW,
      'content-changed: v1 was approved by UAPP with digest bbbbbbbbbbbb, but its stored content now has digest aaaaaaaaaaaa',
    ],
    ['a stale approval, then one of the content now', [approval({ digest: BEFORE }), approval({ userId: 'UAPP2' })], NOW, 'covered by UAPP2'],
    [
      'one that does not cover and one of other content',
      [approval({ via: 'auto', userId: 'tandem:auto' }), approval({ digest: BEFORE, userId: 'UAPP2' })],
      NOW,
      "content-changed: v1 has write steps but ran without a person's approval (tandem:auto); v1 was approved by UAPP2 with digest bbbbbbbbbbbb, but its stored content now has digest aaaaaaaaaaaa",
    ],
  ] as const)('%s', (_name, approvals, digest, expected) => {
    expect(judge([...approvals], digest)).toBe(expected);
  });
});

describe('a rollback step of a version whose content may have changed', () => {
  const run = { id: 'run-1', requester: 'UREQ' } as RunRecord;
  const contextWith = (approvals: ApprovalRecord[]) =>
    ({ store: { listApprovals: async () => approvals }, config: { tools: { riskOf } } }) as unknown as AgentContext;

  it('is stopped, with the reason, only when the content changed after it was approved', async () => {
    const now = await planDigest(v1.plan);
    expect(await rollbackContentChanged(contextWith([approval({ digest: now })]), run, v1)).toBeUndefined();
    expect(await rollbackContentChanged(contextWith([approval({ digest: null })]), run, v1)).toBeUndefined();
    expect(await rollbackContentChanged(contextWith([approval({ digest: BEFORE })]), run, v1)).toBe(
      `v1 was approved by UAPP with digest bbbbbbbbbbbb, but its stored content now has digest ${now.slice(0, 12)}`,
    );
  });

  it('is not stopped for want of an approval: the forward steps ran, so the version was approved', async () => {
    expect(await rollbackContentChanged(contextWith([]), run, v1)).toBeUndefined();
    expect(await rollbackContentChanged(contextWith([approval({ via: 'auto', userId: 'tandem:auto' })]), run, v1)).toBeUndefined();
  });
});
