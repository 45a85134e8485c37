/**
 * A policy reload between two approvals of one version (review 19 finding 5): each approval is judged by the policy
 * in force at its own click, and "fully approved" by the policy of the last one, as the click that let it run asked.
 */
import { describe, expect, it } from 'vitest';
import { auditRuns } from '../../src/audit/audit.ts';
import type { PolicyGate } from '../../src/agent/decisions/policy-approval.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { auditContextOf } from '../audit/support.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();

/** Writes need two people, under a rule called `rule`: a reload that renames it is a new policy (a new hash). */
const policy = (rule: string) => {
  const loaded = loadPolicy([
    {
      file: 'p.cedar',
      text: `@id("anyone-requests")
permit (principal, action == Action::"request", resource);

@id("${rule}") @who("two people") @approvals("2")
permit (principal, action in [Action::"approve", Action::"confirm"], resource is Step)
when { resource.tool == "create_thing" };
`,
    },
  ]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return loaded.value;
};

describe('the audit across a policy reload', () => {
  it('two approvals of one version under two policies are each judged by their own: a valid run, no violation', async () => {
    const before = policy('writes');
    const after = policy('writes-two-people');
    let now = before;
    const gate: PolicyGate = { current: () => now, groups: { groupsOf: async () => [] } };
    const tools = standardTools();
    const h = makeHarness({
      store: db.store,
      tools: tools.all,
      llm: new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 't' } }] })),
      policy: gate,
    });
    const run = await h.start('make a thing', 'UREQ');
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UA', decision: 'approve' })).toMatchObject({ error: { code: 'approval-counted' } });
    now = after;
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UB', decision: 'approve' })).toEqual({ ok: true });
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');

    const stored = new Map([
      [before.hash, before],
      [after.hash, after],
    ]);
    const audit = (policies: Map<string, typeof before>) =>
      auditRuns(h.store, { ...auditContextOf(tools.all), policyOf: (hash) => policies.get(hash) }, { runId: run.id });
    expect(await audit(stored)).toEqual({ runs: 1, violations: [] });
    // The first policy's texts lost: that approval cannot be judged, and says so once; the rest still is.
    const lost = await audit(new Map([[after.hash, after]]));
    expect('violations' in lost && lost.violations.map((v) => v.message)).toEqual([
      `v1 was approved under policy ${before.hash.slice(0, 12)}, whose texts are not stored`,
    ]);
  });
});
