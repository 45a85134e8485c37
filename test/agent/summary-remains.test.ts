/**
 * What a run's end records for its summary (run-ending.ts, run-outcome.ts) on the in-memory store: the
 * steps a cancel stopped or left unstarted are named (contract §5: "what was … cancelled … and what
 * remains"), and a plan nobody approved in time is recorded as expired, which every runs list shows.
 */
import { describe, expect, it } from 'vitest';
import { runLine } from '../../src/bot/views/app-home.ts';
import { summaryMessage } from '../../src/bot/views/run/summary.ts';
import { formatRunList } from '../../src/cli/format-run.ts';
import { showRun } from '../helpers/run-detail.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
const DAY_MS = 86_400_000;

describe('what a run’s end records for its summary', () => {
  it('a cancel while a question waits: the question was stopped, the step after it never ran, and the summary names both', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', title: 'Ask which release', tool: 'ask_human', args: { question: 'Which release?' } },
          { id: 's2', title: 'Open the release issue', tool: 'create_thing', args: { title: 'release' }, dependsOn: ['s1'] },
        ],
      }),
    );
    const h = makeHarness({ store: db.store, tools: tools.all, llm, approvers: ['UAPP'] });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'cancel' });
    await h.agent.idle();

    const [summary] = h.surface.of(run.id, 'summary');
    expect(summary!.summary.verdict).toMatchObject({ kind: 'cancelled', stopped: ['Ask which release'], notRun: ['Open the release issue'] });
    const blocks = JSON.stringify(summaryMessage(summary!.summary).blocks);
    expect(blocks).toContain('*Not run:*\\n• Open the release issue');
    expect(blocks).toContain('Ask which release — stopped before it finished');
    expect(tools.write.calls).toHaveLength(0);
    expect(h.errors).toEqual([]);
  });

  it('a plan left unapproved past its TTL is recorded as expired: the runs lists say expired, never rejected', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 'notes' } }] }));
    const h = makeHarness({ store: db.store, tools: tools.all, llm, approvers: ['UAPP'], settings: { housekeeping: { approvers: ['UAPP'] } } });
    const run = await h.start('write the release notes');
    const proposed = (await h.store.getPlanVersion(run.id, 1))!.createdAt;
    await h.agent.housekeep(new Date(proposed.getTime() + DAY_MS + 60_000));
    await h.agent.idle();

    const stored = (await h.store.getRun(run.id))!;
    expect(stored.status).toBe('expired'); // what the store, the audit and the metrics know too
    expect(runLine(stored)).toMatch(/^:hourglass: \*expired\* · write the release notes/);
    expect(formatRunList([stored])).toMatch(new RegExp(`^${stored.id}  expired `));
    const detail = showRun(stored);
    expect(detail.split('\n')[0]).toBe(`run ${stored.id}  expired`);
    const [summary] = h.surface.of(run.id, 'summary');
    expect(summaryMessage(summary!.summary).text).toMatch(/^:hourglass: Expired: /);
    expect(h.errors).toEqual([]);
  });
});
