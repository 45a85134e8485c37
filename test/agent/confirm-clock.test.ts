/**
 * A Confirm of a write's target named in a person's words holds its step until an approver confirms (decision 055):
 * the time the run only waits for that Confirm is not spent of TANDEM_RUN_TIMEOUT_S.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NumberArg, RepoSchema } from '../../src/integrations/github/repo-ref.ts';
import { createAskHumanTool } from '../../src/integrations/tools/thread/ask-human.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool, type FakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { spoken } from './support/spoken.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => expect(h.errors).toEqual([]));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the run limit and a Confirm', () => {
  it('a Confirm given after longer than the limit: the write runs and the run succeeds', async () => {
    const comment: FakeTool = {
      ...fakeTool({ name: 'comment', risk: 'write', input: z.object({ repo: RepoSchema, number: NumberArg, body: z.string() }) }),
      targets: ['repo', 'number'],
    };
    h = makeHarness({
      store: db.store,
      tools: [createAskHumanTool(), comment],
      llm: new ScriptedLlm().on(
        'planner',
        plannerAnswer({
          steps: [
            { id: 's1', tool: 'ask_human', args: { question: 'Which issue?' } },
            { id: 's2', tool: 'comment', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}', body: 'hi' }, dependsOn: ['s1'] },
          ],
        }),
      ),
      approvers: ['UREQ', 'UAPP'],
      soleOwner: true,
      budgets: { runTimeoutS: 1 },
    });
    const run = await h.start('comment on the issue I name', 'UREQ');
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: '12' })).toBe('answered');
    await h.agent.idle();
    expect((await h.store.listConfirmations(run.id)).map((c) => c.status)).toEqual(['pending']);
    // The Confirm waits longer than the whole run may take (1 s).
    await sleep(1_500);
    expect(await h.agent.confirmTarget({ runId: run.id, planVersion: 1, stepId: 's2', userId: 'UAPP', decision: 'confirm' }).then(spoken)).toMatchObject({
      ok: true,
    });
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    expect(comment.calls.map((call) => call.args.number)).toEqual([12]);
  });
});
