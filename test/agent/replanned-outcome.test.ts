/**
 * A run that finished only because a new plan replaced a failed one does not say "Succeeded" (CONTRACT §5:
 * succeeded only when every step succeeded). The board's title and the summary say what failed before the
 * replan and what the new plan did (issue 29, part 1).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { summaryMessage } from '../../src/bot/views/run/summary.ts';
import { planBoard } from '../../src/bot/views/run/plan-board.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool, standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

const blocksText = (view: { blocks: unknown[] }) => JSON.stringify(view.blocks);

describe('the outcome of a replanned run', () => {
  it('a failed deploy a person replanned around: "Finished after replanning — Deploy web failed", never "Succeeded"', async () => {
    const tools = standardTools();
    const deploy = fakeTool({ name: 'deploy', risk: 'write', run: () => ({ status: 'error', error: { message: 'the deploy workflow concluded failure' } }) });
    const rollBack = fakeTool({ name: 'roll_back', risk: 'write' });
    const llm = new ScriptedLlm()
      .on(
        'planner',
        plannerAnswer({
          goal: 'Deploy web',
          steps: [
            { id: 's1', title: 'Open the tracking issue', tool: 'create_thing', args: { title: 'deploy' } },
            { id: 's2', title: 'Deploy web', tool: 'deploy', args: { key: 'web' }, dependsOn: ['s1'] },
            { id: 's3', title: 'Check web after the deploy', tool: 'read_thing', args: { key: 'health' }, dependsOn: ['s2'] },
          ],
        }),
      )
      .on(
        'planner',
        plannerAnswer({
          goal: 'Roll web back to its last good version',
          steps: [{ id: 's4', title: 'Roll web back', tool: 'roll_back', args: { key: 'web' } }],
        }),
      );
    h = makeHarness({ store: db.store, tools: [...tools.all, deploy, rollBack], llm });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    const escalation = (await h.store.listEscalations(run.id)).find((e) => e.status === 'open')!;
    expect(escalation).toMatchObject({ kind: 'step-failed', stepId: 's2' });
    await h.agent.resolveEscalation({ escalationId: escalation.id, userId: 'UAPP', action: 'replan' });
    await h.agent.idle();
    await h.agent.decide({ runId: run.id, planVersion: 2, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');

    const [summary] = h.surface.of(run.id, 'summary');
    const verdict = summary!.summary.verdict!;
    expect(verdict.kind).toBe('finished-with-problems');
    expect(verdict.headline).toBe('Finished after replanning — Deploy web failed; every step of the new plan succeeded');
    expect(verdict.failed).toEqual(['Deploy web']);
    // The check that waited on the deploy was replaced by the new plan, not left undone by anyone.
    expect(verdict.skipped).toEqual([]);
    const view = summaryMessage(summary!.summary);
    expect(view.text).not.toMatch(/Succeeded/);
    expect(view.text).toContain('Finished after replanning: Roll web back to its last good version');
    expect(blocksText(view)).toContain('Deploy web failed; every step of the new plan succeeded');
    expect(blocksText(view)).toContain('Deploy web — failed');
    // No Save as runbook for a run that needed a rescue.
    expect(blocksText(view)).not.toContain('Save as runbook');

    // The board draws the new version's cards, and its title says the same outcome as the summary.
    const board = h.surface.boards.get(run.id)!;
    expect(board.planVersion).toBe(2);
    expect(board.outcome?.headline).toBe(verdict.headline);
    const drawn = planBoard(board)!;
    expect(drawn.text).not.toMatch(/^Succeeded/);
    expect(blocksText(drawn)).toContain('Deploy web failed');
  });

  it('a failed read replanned by itself says so too, and what the new plan left undone', async () => {
    const tools = standardTools();
    const lookup = fakeTool({ name: 'lookup', risk: 'read', run: () => ({ status: 'error', error: { message: 'repo acme/ap not found (404)' } }) });
    const flaky = fakeTool({ name: 'flaky', risk: 'read', run: () => ({ status: 'error', error: { message: 'timed out' } }) });
    const llm = new ScriptedLlm()
      .on('planner', plannerAnswer({ steps: [{ id: 's1', title: 'Look up acme/ap', tool: 'lookup', args: { key: 'acme/ap' } }] }))
      .on(
        'planner',
        plannerAnswer({
          steps: [
            { id: 's2', title: 'Look up acme/api', tool: 'read_thing', args: { key: 'acme/api' } },
            { id: 's3', title: 'Read the flaky page', tool: 'flaky', args: { key: 'p' } },
          ],
        }),
      );
    h = makeHarness({ store: db.store, tools: [...tools.all, lookup, flaky], llm, settings: { autoRunReadOnly: true }, budgets: { maxReplans: 1 } });
    const run = await h.start();
    // s3 fails with the replan budget spent: a person skips it, and the run finishes.
    const escalation = (await h.store.listEscalations(run.id)).find((e) => e.status === 'open')!;
    expect(escalation).toMatchObject({ stepId: 's3' });
    await h.agent.resolveEscalation({ escalationId: escalation.id, userId: 'UAPP', action: 'skip' });
    await h.agent.idle();
    const [summary] = h.surface.of(run.id, 'summary');
    expect(summary!.summary.verdict).toMatchObject({
      kind: 'finished-with-problems',
      headline: 'Finished after replanning — Look up acme/ap failed; the new plan finished with 1 skipped',
      failed: ['Look up acme/ap'],
      skipped: ['Read the flaky page'],
    });
  });
});
