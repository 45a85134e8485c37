import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NumberArg, RepoSchema } from '../../src/integrations/github/repo-ref.ts';
import { createAskHumanTool } from '../../src/integrations/tools/thread/ask-human.ts';
import { fakeTool, type FakeTool } from '../agent/support/fake-tools.ts';
import { makeHarness, type Harness } from '../agent/support/harness.ts';
import { ScriptedLlm, plannerAnswer } from '../agent/support/scripted-llm.ts';
import { mergePullTool } from '../agent/support/target-tools.ts';
import { useTestStore } from '../helpers/store.ts';
import { auditViolations } from './support.ts';

const db = useTestStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

function tools() {
  const merge = mergePullTool();
  const getPull: FakeTool = {
    ...fakeTool({
      name: 'get_pull',
      risk: 'read',
      input: z.object({ repo: RepoSchema, number: NumberArg }),
      run: (args) => ({ status: 'ok', output: { number: args.number } }),
    }),
    targets: ['repo', 'number'],
  };
  return { merge, all: [createAskHumanTool(), merge, getPull] };
}

describe('tandem audit of a late-bound target after a Modify', () => {
  it('a version that was only proposed does not decide which steps held words: the edited plan that ran without a Confirm has no violation', async () => {
    const t = tools();
    const asked = plannerAnswer({
      steps: [
        { id: 's1', tool: 'ask_human', args: { question: 'Which PR?' } },
        { id: 's2', tool: 'merge_pull', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, dependsOn: ['s1'] },
      ],
    });
    h = makeHarness({ store: db.store, tools: t.all, llm: new ScriptedLlm().on('planner', asked), approvers: ['UAPP'], soleOwner: true });
    const run = await h.start('merge the PR', 'UREQ');
    const v1 = (await h.store.getPlanVersion(run.id, 1))!.plan;
    // Modify: the same ids, now a read of a fixed number and a merge of what it read. No person's words are in it.
    const edited = {
      ...v1,
      steps: [
        { ...v1.steps[0]!, tool: 'get_pull', args: { repo: 'acme/api', number: 42 } },
        { ...v1.steps[1]!, args: { repo: 'acme/api', number: '{{steps.s1.output.number}}' } },
      ],
    };
    expect((await h.agent.editPlan({ runId: run.id, planVersion: 1, userId: 'UREQ', plan: edited })).ok).toBe(true);
    expect((await h.agent.decide({ runId: run.id, planVersion: 2, userId: 'UAPP', decision: 'approve' })).ok).toBe(true);
    await h.agent.idle();
    // Correctly run without asking for a Confirm, and the audit agrees.
    expect(h.surface.of(run.id, 'confirm')).toEqual([]);
    expect(t.merge.calls.map((call) => call.args)).toEqual([{ repo: 'acme/api', number: 42 }]);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    expect(await auditViolations(h.store, t.all, ['UAPP'], run.id)).toEqual([]);
  });
});
