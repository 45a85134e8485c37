/**
 * The run-status table (model/run-moves.ts): what it allows, and that every status change the store makes
 * while runs go through their lives (approval, questions, parallel failures answered every way, replans,
 * aborts, cancels, rejects) is a move of the table.
 */
import { describe, expect, it } from 'vitest';
import { canMove, isKnownMove, movesFrom, OPEN_RUN_STATUSES, WAITING_RUN_STATUSES } from '../../src/agent/model/run-moves.ts';
import { FINAL_RUN_STATUSES, RUN_STATUSES, type RunStatus } from '../../src/agent/model/statuses.ts';
import { createMemoryRunStore } from '../../src/agent/testing/memory-store/index.ts';
import { fakeTool, standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

describe('the run-status table', () => {
  it.each([
    ['paused', 'resume', true],
    ['executing', 'resume', false],
    ['executing', 'pause', true],
    ['awaiting-approval', 'approve', true],
    ['executing', 'approve', false],
    ['executing', 'answer-step', true],
    ['paused', 'answer-step', true],
    ['rolling-back', 'answer-step', false],
    ['rolling-back', 'roll-back', false],
    ['awaiting-answer', 'roll-back', true],
    ['succeeded', 'end', false],
    ['rolling-back', 'end', true],
    ['planning', 'replan', false],
    ['planning', 'plan-again', true],
  ] as const)('%s may %s: %s', (from, move, allowed) => {
    expect(canMove(from, move)).toBe(allowed);
  });

  it('a run ends from every open status and from no final one; the open and waiting lists are what the table says', () => {
    expect(new Set(movesFrom('end'))).toEqual(new Set(RUN_STATUSES.filter((s) => !FINAL_RUN_STATUSES.includes(s))));
    expect(OPEN_RUN_STATUSES).toEqual(movesFrom('end'));
    expect(WAITING_RUN_STATUSES).not.toContain('planning');
    for (const final of FINAL_RUN_STATUSES) for (const to of RUN_STATUSES) expect(isKnownMove(final, to)).toBe(final === to);
  });
});

/** A deploy that fails the first time for each target of each run. */
function flakyDeploy() {
  const tries = new Map<string, number>();
  return fakeTool({
    name: 'deploy',
    risk: 'write',
    run: (args, ctx) => {
      const key = `${ctx.runId}/${String(args.key)}`;
      tries.set(key, (tries.get(key) ?? 0) + 1);
      return tries.get(key) === 1 ? { status: 'error', error: { message: `deploy of ${key} failed` } } : { status: 'ok', output: { deployed: key } };
    },
  });
}

const twoDeploys = plannerAnswer({
  steps: [
    { id: 'd1', tool: 'deploy', args: { key: 'a' } },
    { id: 'd2', tool: 'deploy', args: { key: 'b' } },
    { id: 'n1', tool: 'read_thing', args: { key: 'a' }, dependsOn: ['d1'] },
  ],
});

describe('every status change the store makes is a move of the table', () => {
  it('through approvals, questions, parallel failures, replans, aborts, cancels and rejects', async () => {
    const seen: [RunStatus, RunStatus][] = [];
    const store = createMemoryRunStore({ onRunMove: (_runId, from, to) => seen.push([from, to]) });
    const tools = standardTools();
    const llm = new ScriptedLlm()
      // 1: two failures, Retry one and Skip the other.
      .on('planner', twoDeploys)
      // 2: two failures, Abort.
      .on('planner', twoDeploys)
      // 3: two failures, Replan, the new version rejected.
      .on('planner', twoDeploys)
      .on('planner', plannerAnswer({ steps: [{ id: 'x', tool: 'create_thing', args: { title: 'x' } }] }))
      // 4: a question answered, then a cancel while the next question waits.
      .on(
        'planner',
        plannerAnswer({
          steps: [
            { id: 'q1', tool: 'ask_human', args: { question: 'Which?' } },
            { id: 'q2', tool: 'ask_human', args: { question: 'And then?' }, dependsOn: ['q1'] },
          ],
        }),
      )
      // 5: the plan asks the requester first, then plans again with the answer.
      .on('planner', plannerAnswer({ steps: [], questions: ['Which repository?'] }))
      .on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'r' } }] }));
    const h = makeHarness({ store, tools: [...tools.all, flakyDeploy()], llm, approvers: ['UAPP'] });
    const approve = async (runId: string, planVersion = 1) => {
      await h.agent.decide({ runId, planVersion, userId: 'UAPP', decision: 'approve' });
      await h.agent.idle();
    };
    const open = async (runId: string) => (await store.listEscalations(runId)).filter((e) => e.status === 'open');
    const answer = async (escalationId: string, action: 'retry' | 'skip' | 'replan' | 'abort') => {
      expect((await h.agent.resolveEscalation({ escalationId, userId: 'UAPP', action })).ok).toBe(true);
      await h.agent.idle();
    };

    const first = await h.start();
    await approve(first.id);
    const [e1, e2] = await open(first.id);
    await answer(e1!.id, 'retry');
    await answer(e2!.id, 'skip');
    expect((await store.getRun(first.id))?.status).toBe('succeeded');

    const second = await h.start();
    await approve(second.id);
    await answer((await open(second.id))[0]!.id, 'abort');
    expect((await store.getRun(second.id))?.status).toBe('aborted');

    const third = await h.start();
    await approve(third.id);
    await answer((await open(third.id))[1]!.id, 'replan');
    expect((await h.agent.decide({ runId: third.id, planVersion: 2, userId: 'UAPP', decision: 'reject' })).ok).toBe(true);
    await h.agent.idle();
    expect((await store.getRun(third.id))?.status).toBe('rejected');

    const fourth = await h.start();
    await approve(fourth.id);
    await h.agent.followUp({ conversation: fourth.conversation, userId: 'UREQ', text: 'this one' });
    await h.agent.idle();
    await h.agent.followUp({ conversation: fourth.conversation, userId: 'UREQ', text: 'cancel' });
    await h.agent.idle();
    expect((await store.getRun(fourth.id))?.status).toBe('cancelled');

    const fifth = await h.start();
    expect((await store.getRun(fifth.id))?.status).toBe('awaiting-answer');
    await h.agent.followUp({ conversation: fifth.conversation, userId: 'UREQ', text: 'acme/api' });
    await h.agent.idle();
    await approve(fifth.id, (await store.getRun(fifth.id))!.currentPlanVersion!);
    expect((await store.getRun(fifth.id))?.status).toBe('succeeded');

    expect(seen.filter(([from, to]) => !isKnownMove(from, to))).toEqual([]);
    // The runs above went through every kind of move but the replica-only ones.
    const kinds = new Set(seen.map(([from, to]) => `${from}>${to}`));
    for (const move of ['planning>awaiting-approval', 'awaiting-approval>executing', 'executing>paused', 'paused>executing', 'awaiting-answer>planning'])
      expect(kinds).toContain(move);
    h.llm.assertDone();
    expect(h.errors).toEqual([]);
  });
});
