/**
 * A Replan answered while another step of the run is still running (decision 041): the answer is recorded at
 * once, but the plan is not replaced under a running write. The driver starts nothing more, the running step
 * ends and is recorded as it really ended (not cut and left "uncertain"), and only then is the new plan made.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../../src/agent/sleep.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
let h: Harness | undefined;
afterEach(() => {
  h?.llm.assertDone();
  expect(h?.errors ?? []).toEqual([]);
  h = undefined;
});

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return;
    await sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a Replan while another step runs', () => {
  it('is recorded at once; the running write ends and is recorded as it ended, once, before the new plan is made', async () => {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const deploy = fakeTool({ name: 'deploy', risk: 'write', run: () => ({ status: 'error', error: { message: 'the deploy concluded failure' } }) });
    const publish = fakeTool({
      name: 'publish',
      risk: 'write',
      run: async () => {
        await gate;
        return { status: 'ok', output: { published: true } };
      },
    });
    const llm = new ScriptedLlm()
      .on(
        'planner',
        plannerAnswer({
          steps: [
            { id: 'd1', title: 'deploy', tool: 'deploy', args: { key: 'a' } },
            { id: 'p1', title: 'publish', tool: 'publish', args: { key: 'b' } },
          ],
        }),
      )
      .on('planner', plannerAnswer({ steps: [{ id: 'x1', title: 'deploy another way', tool: 'deploy', args: { key: 'c' } }] }));
    h = makeHarness({ store: db.store, tools: [deploy, publish], llm, approvers: ['UAPP'] });
    const run = await h.start();
    expect((await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).ok).toBe(true);
    await until(async () => (await h!.store.listEscalations(run.id)).length === 1, 'the escalation of the failed deploy');
    const [escalation] = await h.store.listEscalations(run.id);

    const answering = h.agent.resolveEscalation({ escalationId: escalation!.id, userId: 'UAPP', action: 'replan' });
    // The answer is recorded at once, while the write still runs and nothing is planned yet.
    await until(async () => (await h!.store.getEscalation(escalation!.id))?.status === 'resolved', 'the answer recorded');
    const step = async (id: string) => (await h!.store.listSteps(run.id)).find((s) => s.stepId === id && s.planVersion === 1);
    expect((await step('p1'))?.status).toBe('running');
    expect(await h.store.getRun(run.id)).toMatchObject({ status: 'executing', currentPlanVersion: 1 });

    finish();
    expect((await answering).ok).toBe(true);
    await h.agent.idle();
    // The write was not cut: it ran once and is recorded as done; the new plan came after it, for approval.
    expect(publish.calls).toHaveLength(1);
    expect(await step('p1')).toMatchObject({ status: 'succeeded', output: { published: true } });
    expect(await h.store.getRun(run.id)).toMatchObject({ status: 'awaiting-approval', currentPlanVersion: 2 });
  });
});
