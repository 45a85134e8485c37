/**
 * The outcome as a finished run records it (run-ending.ts), on a real store: a check the evaluator model
 * could not make is not a success, and a run that never started a step posts no board.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LlmError } from '../../src/agent/model/errors.ts';
import { summaryMessage } from '../../src/bot/views/run/summary.ts';
import { useTestStore } from '../helpers/store.ts';
import { planBoard } from '../../src/bot/views/run/plan-board.ts';
import { fakeTool, standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useTestStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

describe('a run’s recorded outcome', () => {
  it('the evaluator model is down: the run does not end "Succeeded"; the summary says the check could not be made', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm(['planner', 'evaluator'])
      .on('planner', plannerAnswer({ steps: [{ id: 's1', title: 'Read the version', tool: 'read_thing', args: { key: 'v' }, expect: 'the version is 2.x' }] }))
      .on('evaluator', new LlmError('unavailable', 'the evaluator provider answered 503'));
    h = makeHarness({ store: db.store, tools: tools.all, llm, settings: { autoRunReadOnly: true } });
    const run = await h.start();
    const [summary] = h.surface.of(run.id, 'summary');
    expect(summary!.summary.verdict).toMatchObject({ kind: 'finished-with-problems', unchecked: ['Read the version'] });
    const view = summaryMessage(summary!.summary);
    expect(view.text).not.toMatch(/Succeeded|Done/);
    expect(JSON.stringify(view.blocks)).toContain('could not be made');
    // The board agrees: its title is the same outcome, and the step is not shown as a pass.
    const board = h.surface.boards.get(run.id)!;
    expect(board.outcome?.headline).toBe('Finished with 1 not checked');
    expect(board.steps[0]).toMatchObject({ status: 'succeeded', unchecked: true });
  });

  it('a plan rejected before it started gets no board, and its summary offers no feedback', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 'x' } }] }));
    h = makeHarness({ store: db.store, tools: tools.all, llm });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UREQ', decision: 'reject' });
    await h.agent.idle();
    expect(h.surface.boards.has(run.id)).toBe(false);
    const [summary] = h.surface.of(run.id, 'summary');
    expect(summary!.summary).toMatchObject({ outcome: 'rejected', ran: false });
    expect(JSON.stringify(summaryMessage(summary!.summary).blocks)).not.toContain('feedback_buttons');
  });

  it('a plan escalated for low confidence gets no board before anyone approves it', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ confidence: 0.2, steps: [{ id: 's1', tool: 'read_thing', args: { key: 'a' } }] }));
    h = makeHarness({ store: db.store, tools: tools.all, llm });
    const run = await h.start();
    expect((await h.store.listEscalations(run.id)).map((e) => e.kind)).toEqual(['low-confidence']);
    expect(h.surface.boards.has(run.id)).toBe(false);
  });

  it('changes are recorded as what happened, with their links; the read answers first', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', title: 'Read it', tool: 'read_thing', args: { key: 'a' } },
          { id: 's2', title: 'Make it', tool: 'create_thing', args: { title: 'x' }, dependsOn: ['s1'] },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: tools.all, llm });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    const [summary] = h.surface.of(run.id, 'summary');
    expect(summary!.summary.verdict).toMatchObject({ kind: 'succeeded', headline: 'Succeeded' });
    expect(summary!.summary.fromRunbook).toBe(false);
    // A tool without words of its own is said by its step's title, as a change.
    expect(summary!.summary.results?.filter((r) => r.kind === 'change').map((r) => r.text)).toEqual(['Make it']);
    expect(JSON.stringify(summaryMessage(summary!.summary).blocks)).toContain('*What changed:*\\n• Make it');
  });

  it('a board whose plan a replan replaced says "Replaced by plan v2" while v2 waits for approval, not "waiting for a person"', async () => {
    const tools = standardTools();
    const failing = fakeTool({ name: 'lookup', risk: 'read', run: () => ({ status: 'error', error: { message: 'repo acme/ap not found (404)' } }) });
    const llm = new ScriptedLlm()
      .on(
        'planner',
        plannerAnswer({
          steps: [
            { id: 's1', tool: 'read_thing', args: { key: 'a' } },
            { id: 's2', tool: 'lookup', args: { key: 'acme/ap' } },
            { id: 's3', tool: 'create_thing', args: { title: 'x' }, dependsOn: ['s2'] },
          ],
        }),
      )
      .on('planner', plannerAnswer({ steps: [{ id: 's4', tool: 'create_thing', args: { title: 'y' } }] }));
    h = makeHarness({ store: db.store, tools: [...tools.all, failing], llm });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-approval');
    const board = h.surface.boards.get(run.id)!;
    expect(board).toMatchObject({ planVersion: 1, replacedBy: 2 });
    const view = planBoard(board)!;
    expect(view.text).toMatch(/^Replaced by plan v2: /);
    expect(JSON.stringify(view.blocks)).not.toContain('Cancel run');
  });
});
