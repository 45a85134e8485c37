/**
 * The one writer of a run's board (delivery/board-writer.ts): boards drawn from the store reach the thread in the
 * order their reads began, so a slow read can never put an older board over a newer one, and changes noted while a
 * board is being read are drawn once more, not once each.
 */
import { describe, expect, it } from 'vitest';
import { createBoardWriter } from '../../src/agent/delivery/board-writer.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import type { BoardState } from '../../src/agent/ports/surface.ts';
import { createMemoryRunStore } from '../../src/agent/testing/memory-store/index.ts';
import { makePlan } from '../fakes/slack-fixtures.ts';

/** The store, with one board read held until released: a database that answers one read slowly. */
function withHeldRead(store: RunStore) {
  let hold: (() => Promise<void>) | undefined;
  const reads = {
    /** The next board read waits for `release()`; `started` resolves once it has read. */
    holdNext() {
      let release!: () => void;
      let started!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const began = new Promise<void>((resolve) => (started = resolve));
      hold = async () => {
        hold = undefined;
        started();
        await gate;
      };
      return { release, started: began };
    },
  };
  const slow: RunStore = Object.create(store) as RunStore;
  slow.boardSource = async (...args) => {
    const source = await store.boardSource(...args);
    await hold?.();
    return source;
  };
  return { store: slow, reads };
}

async function runWithOneStep(store: RunStore) {
  const run = await store.createRun({ task: 'check CI', requester: 'UREQ', conversation: { channel: 'C1', threadTs: '1.1' }, origin: 'mention' });
  await store.addPlanVersion({ runId: run.id, plan: makePlan(1), authorKind: 'planner', authorId: 'model', parentVersion: null, reason: null, proposed: {} });
  await store.createSteps(run.id, 1, [
    { stepId: 's1', kind: 'forward', title: 'Check CI run 1', tool: 'github_list_workflow_runs', risk: 'read', dependsOn: [], plannedArgs: {} },
  ]);
  return run;
}

describe('the board writer', () => {
  it('hands boards to the surface in the order their reads began: a slow read does not land over a newer board', async () => {
    const memory = createMemoryRunStore();
    const { store, reads } = withHeldRead(memory);
    const run = await runWithOneStep(memory);
    const handed: BoardState['steps'][number]['status'][] = [];
    const boards = createBoardWriter({
      store,
      now: () => new Date(),
      surface: { reportProgress: async (_run, board) => void handed.push(board.steps[0]!.status) },
    });

    const slowRead = reads.holdNext();
    const first = boards.changed(run.id);
    await slowRead.started; // the first draw read the step still pending, and its answer is slow
    await memory.setStepStatus({ runId: run.id, planVersion: 1, stepId: 's1', from: ['pending'], to: 'skipped' });
    const second = boards.changed(run.id);
    const third = boards.changed(run.id);
    slowRead.release();
    await Promise.all([first, second, third]);

    // One more draw for the two changes noted during the slow read, and the thread ends with the newest state.
    expect(handed).toEqual(['pending', 'skipped']);
  });

  it('a run that never started a step gets no board', async () => {
    const store = createMemoryRunStore();
    const run = await store.createRun({ task: 'check CI', requester: 'UREQ', conversation: { channel: 'C1', threadTs: '1.1' }, origin: 'mention' });
    await store.addPlanVersion({ runId: run.id, plan: makePlan(1), authorKind: 'planner', authorId: 'model', parentVersion: null, reason: null, proposed: {} });
    const handed: string[] = [];
    const boards = createBoardWriter({ store, now: () => new Date(), surface: { reportProgress: async (drawn) => void handed.push(drawn.id) } });
    await boards.changed(run.id);
    expect(handed).toEqual([]);
  });
});
