/**
 * Two questions open at once (parallel ask_human steps): an Answer form answers the question it was opened on, never
 * the other one; a mention from someone a question was handed to (Reassign) answers that question, whichever is
 * older (review 19: the form's answer went to the oldest question, and a hand-over of the second let its new
 * addressee answer neither).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useMemoryStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => expect(h.errors).toEqual([]));

const twoQuestions = plannerAnswer({
  steps: [
    { id: 'repo', tool: 'ask_human', args: { question: 'Which repository?' } },
    { id: 'tag', tool: 'ask_human', args: { question: 'Which tag?' } },
  ],
});

async function askingTwo() {
  h = makeHarness({
    store: db.store,
    tools: standardTools().all,
    llm: new ScriptedLlm().on('planner', twoQuestions),
    approvers: ['UAPP'],
    settings: { autoRunReadOnly: true },
  });
  const run = await h.start('ask two things', 'UREQ');
  await h.agent.idle();
  const questions = await h.store.listQuestions(run.id);
  const idOf = (stepId: string) => questions.find((q) => q.stepId === stepId)!.id;
  return { run, repo: idOf('repo'), tag: idOf('tag') };
}

const answers = async (runId: string) => Object.fromEntries((await h.store.listQuestions(runId)).map((q) => [q.stepId, q.answer]));
const stepStatus = async (runId: string) => Object.fromEntries((await h.store.listSteps(runId)).map((s) => [s.stepId, s.status]));

describe('two open questions', () => {
  it('an Answer form answers the question it was opened on, not the older one; the other step still waits for its own', async () => {
    const { run, repo, tag } = await askingTwo();
    const form = (questionId: string, text: string) => h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text, asAnswer: true, questionId });

    expect(await form(tag, 'v1.2')).toBe('answered');
    await h.agent.idle();
    expect(await answers(run.id)).toEqual({ repo: null, tag: 'v1.2' });
    expect(await stepStatus(run.id)).toEqual({ repo: 'waiting', tag: 'succeeded' });

    expect(await form(repo, 'acme/api')).toBe('answered');
    await h.agent.idle();
    expect(await answers(run.id)).toEqual({ repo: 'acme/api', tag: 'v1.2' });
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it('a form opened on a question answered meanwhile answers nothing, and the other question stays open', async () => {
    const { run, tag } = await askingTwo();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UAPP', text: 'v1.2', asAnswer: true, questionId: tag })).toBe('answered');
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'v9', asAnswer: true, questionId: tag })).toBe('ignored');
    await h.agent.idle();
    expect(await answers(run.id)).toEqual({ repo: null, tag: 'v1.2' });
    expect((await h.store.listQuestions(run.id)).find((q) => q.stepId === 'tag')).toMatchObject({ answeredBy: 'UAPP' });
  });

  it('the second question handed to someone: their mention answers it, not the older one, and their form on the older one is refused', async () => {
    const { run, tag, repo } = await askingTwo();
    const handed = await h.agent.reassign({ wait: { kind: 'question', runId: run.id, questionId: tag }, userId: 'UREQ', to: 'UOTHER' });
    expect(handed.ok).toBe(true);

    const refused = await h.agent.followUp({ conversation: run.conversation, userId: 'UOTHER', text: 'acme/api', asAnswer: true, questionId: repo });
    expect(refused).toMatchObject({ refused: { code: 'not-requester-or-approver' } });
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UOTHER', text: 'v1.2' })).toBe('answered');
    await h.agent.idle();
    expect(await answers(run.id)).toEqual({ repo: null, tag: 'v1.2' });
    expect((await h.store.listQuestions(run.id)).find((q) => q.stepId === 'tag')).toMatchObject({ answeredBy: 'UOTHER' });
  });
});
