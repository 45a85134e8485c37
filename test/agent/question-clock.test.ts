/**
 * An ask_human question holds its step until someone answers (decision 055): the time the run only waits for that
 * answer is not spent of TANDEM_RUN_TIMEOUT_S, while a step that runs beside the question spends it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useMemoryStore } from '../helpers/store.ts';
import { said } from '../helpers/words.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => expect(h.errors).toEqual([]));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function harness(steps: Parameters<typeof plannerAnswer>[0]['steps'], readLatencyMs = 5) {
  const tools = standardTools({ read: { latencyMs: readLatencyMs } });
  h = makeHarness({
    store: db.store,
    tools: tools.all,
    llm: new ScriptedLlm().on('planner', plannerAnswer({ steps })),
    settings: { autoRunReadOnly: true },
    budgets: { runTimeoutS: 1 },
  });
  return tools;
}

describe('the run limit and a question', () => {
  it('a question answered after longer than the limit: the run goes on with the answer and succeeds', async () => {
    const tools = harness([
      { id: 'q', tool: 'ask_human', args: { question: 'Which key?' } },
      { id: 'read', tool: 'read_thing', args: { key: 'k' }, dependsOn: ['q'] },
    ]);
    const run = await h.start('ask then read', 'UREQ');
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('paused');
    await sleep(1_500);
    const [question] = await h.store.listQuestions(run.id);
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'k', asAnswer: true, questionId: question!.id })).toBe('answered');
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    expect(tools.read.calls).toHaveLength(1);
  });

  it('a step that runs beside the open question spends the time: past the limit the run stops', async () => {
    harness(
      [
        { id: 'q', tool: 'ask_human', args: { question: 'Which key?' } },
        { id: 'read', tool: 'read_thing', args: { key: 'k' } },
      ],
      30_000,
    );
    const run = await h.start('ask and read', 'UREQ');
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('failed');
    expect(said(h.surface.of(run.id, 'summary')[0]?.summary.reason ?? null)).toMatch(/took longer than 1s \(TANDEM_RUN_TIMEOUT_S\)/);
  });
});
