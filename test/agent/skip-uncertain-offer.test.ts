/**
 * An escalation says what already changed (CONTRACT §5: it "says what happened"). A step a person skipped while it
 * was uncertain may have taken effect all the same: a later escalation names it, and never says "Nothing has
 * changed yet".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAskHumanTool } from '../../src/integrations/tools/thread/ask-human.ts';
import { escalationMessage } from '../../src/bot/views/run/escalation.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

const lostAnswer = fakeTool({
  name: 'merge_pull',
  risk: 'write',
  input: z.object({ number: z.number() }),
  run: () => ({ status: 'error', error: { message: 'the connection dropped after the request was sent', uncertain: true } }),
});
const broken = fakeTool({ name: 'deploy', risk: 'write', input: z.object({ ref: z.string() }), run: () => ({ status: 'error', error: { message: 'boom' } }) });

/** s1's merge is uncertain; s3 waits for an answer, and s2, after it, fails: its escalation comes after s1's Skip. */
const plan = plannerAnswer({
  steps: [
    { id: 's1', title: 'Merge the feature pull', tool: 'merge_pull', args: { number: 7 } },
    { id: 's3', title: 'Ask which ref', tool: 'ask_human', args: { question: 'Which ref?' } },
    { id: 's2', title: 'Deploy it', tool: 'deploy', args: { ref: 'main' }, dependsOn: ['s3'] },
  ],
});

describe('an escalation after an uncertain step was skipped', () => {
  it('names the skipped step as one that may have taken effect, not "Nothing has changed yet"', async () => {
    h = makeHarness({ store: db.store, tools: [createAskHumanTool(), lostAnswer, broken], llm: new ScriptedLlm().on('planner', plan), approvers: ['UAPP'] });
    const run = await h.start('merge and deploy', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    const [uncertain] = await h.store.listEscalations(run.id);
    expect(uncertain).toMatchObject({ kind: 'uncertain-side-effect', stepId: 's1' });
    expect(await h.agent.resolveEscalation({ escalationId: uncertain!.id, userId: 'UAPP', action: 'skip' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'main' })).toBe('answered');
    await h.agent.idle();

    const later = h.surface.of(run.id, 'escalation').find((m) => m.escalation.stepId === 's2')!;
    const view = JSON.stringify(escalationMessage({ escalation: later.escalation, offer: later.offer, escalateTo: undefined }).blocks);
    expect(view).toContain('May or may not have taken effect: Merge the feature pull.');
    expect(view).not.toContain('Nothing has changed yet');
  });
});
