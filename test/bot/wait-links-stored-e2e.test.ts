/**
 * A board links each wait's message from where the store says it was posted (decision 037), so another
 * replica, or the process after a restart, links it too; before, only the posting process knew and every
 * other board said "the question is in this thread". An escalation of the run as a whole (a driver
 * failure) is linked from the board's waiting line. Real Bolt, agent and store; the fake Web API.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildBoard } from '../../src/agent/delivery/board.ts';
import type { RunRecord } from '../../src/agent/ports/run-store.ts';
import type { BoardState } from '../../src/agent/ports/surface.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { useTestStore } from '../helpers/store.ts';
import { silentLogger } from '../fakes/slack-harness.ts';
import { makeOffer, makePlan } from '../fakes/slack-fixtures.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlan } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

/** Another replica's surface (or the next process's): it posted nothing, so it knows no link of its own. */
const otherReplica = (stored: boolean) =>
  new SlackSurface({
    client: e.client,
    logger: silentLogger(),
    escalateTo: 'SOPS',
    boardIntervalMs: 10,
    ...(stored ? { waitMessages: e.agent.waitMessages } : {}),
  });

/**
 * The messages sent while a surface draws the run's board from `board`. The running process's own board may edit
 * the same message meanwhile (it redraws at most once a second), so a caller asks whether any of them, or all,
 * carry a link, never which came last.
 */
async function boardDrawnBy(surface: SlackSurface, run: RunRecord, board: BoardState): Promise<string[]> {
  const from = e.fake.calls.length;
  await surface.reportProgress(run, board);
  await surface.board.settle(run.id);
  const sent = e.fake.calls.slice(from).filter((call) => call.method === 'chat.update' || call.method === 'chat.postMessage');
  expect(sent.length).toBeGreaterThan(0);
  return sent.map((call) => JSON.stringify(call.params));
}

/** The last message a surface sent for a board of a run no process is running (nothing else edits it). */
async function lastDrawnBy(surface: SlackSurface, run: RunRecord, board: BoardState): Promise<string> {
  return (await boardDrawnBy(surface, run, board)).at(-1)!;
}

describe('a board on another replica links the message a wait was posted as', () => {
  it("a failed step's escalation: its link is stored, and a board drawn elsewhere links the step to it", async () => {
    e.tools.changeFailures = 1;
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> flaky change please' });
    await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const escalation = await e.waitForMessage(sent.ts, (m) => m.text.includes('A step failed') && hasButtons(m), 'the escalation');
    const run = (await db.store.findRunByConversation({ channel: 'C1', threadTs: sent.ts }))!;
    await e.agent.idle();
    const link = `/archives/C1/p${escalation.ts.replace('.', '')}`;
    const stored = (await db.store.listWaitMessages(run.id)).find((message) => message.wait === 'escalation');
    expect(stored).toMatchObject({ ts: escalation.ts });
    expect(stored!.permalink).toContain(link);
    // This process's own board links the escalation too, redrawn at most once a second: it must have landed before
    // the other replicas draw, or its late edit would be read as theirs.
    await e.fake.waitUntil(() => blocksText(e.fake.model.findMessage('C1', run.boardRef!) ?? { blocks: [] }).includes(link), 5000, 'the own board linking it');

    const paused = (await db.store.getRun(run.id))!;
    const version = (await db.store.getPlanVersion(run.id, 1))!;
    const board = buildBoard(paused, 1, version.plan, await db.store.listSteps(run.id), new Date());
    // Every board drawn meanwhile links it: the other replica's, and any late edit of this process's own.
    expect((await boardDrawnBy(otherReplica(true), paused, board)).every((drawn) => drawn.includes(link))).toBe(true);
    // What a board elsewhere drew before links were stored: no link, only "in this thread".
    expect((await boardDrawnBy(otherReplica(false), paused, board)).some((drawn) => !drawn.includes(link))).toBe(true);
  });

  it("the run's own escalation (a driver failure) is linked from the waiting line; once answered, the link goes", async () => {
    const plan = makePlan(2);
    const created = await db.store.createRun({ task: 'two checks', requester: 'UREQ', conversation: { channel: 'C1', threadTs: '1700.9' }, origin: 'mention' });
    await db.store.addPlanVersion({ runId: created.id, plan, authorKind: 'planner', authorId: 'fake', parentVersion: null, reason: null });
    const run = await db.store.updateRun(created.id, { currentPlanVersion: 1, status: 'paused' });
    const escalation = await db.store.openEscalation({
      runId: run.id,
      planVersion: 1,
      stepId: null,
      kind: 'driver-failed',
      message: 'the store refused a write',
    });
    await otherReplica(true).escalate(run, escalation, makeOffer({ answers: ['retry', 'abort'] }));
    const [stored] = await db.store.listWaitMessages(run.id);
    expect(stored).toMatchObject({ wait: 'escalation', key: escalation.id });

    const board: BoardState = { ...buildBoard(run, 1, plan, [], new Date()), runStatus: 'paused' };
    const drawn = await lastDrawnBy(otherReplica(true), run, board);
    expect(drawn).toContain(stored!.permalink!);
    expect(drawn).toContain('the message waiting for you');

    await db.store.resolveEscalation({ id: escalation.id, action: 'retry', userId: 'UAPP1' });
    expect(await lastDrawnBy(otherReplica(true), run, board)).not.toContain(stored!.permalink!);
  });

  it("a failed replan: the step's answered escalation is no longer linked, the run's replan-failed one is", async () => {
    const plan = makePlan(2);
    const created = await db.store.createRun({
      task: 'two checks',
      requester: 'UREQ',
      conversation: { channel: 'C1', threadTs: '1700.10' },
      origin: 'mention',
    });
    await db.store.addPlanVersion({ runId: created.id, plan, authorKind: 'planner', authorId: 'fake', parentVersion: null, reason: null });
    const run = await db.store.updateRun(created.id, { currentPlanVersion: 1, status: 'paused' });
    const surface = otherReplica(true);
    // The step failed and was escalated; Replan answered it, and the planner then failed.
    const failed = await db.store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's1', kind: 'step-failed', message: 'boom' });
    await surface.escalate(run, failed, makeOffer());
    await db.store.resolveEscalation({ id: failed.id, action: 'replan', userId: 'UAPP1' });
    const replan = await db.store.openEscalation({ runId: run.id, planVersion: 1, stepId: null, kind: 'replan-failed', message: 'the planner failed' });
    await surface.escalate(run, replan, makeOffer({ answers: ['retry', 'abort'] }));
    const links = new Map((await db.store.listWaitMessages(run.id)).map((message) => [message.key, message.permalink!]));

    const base = buildBoard(run, 1, plan, [], new Date());
    const board: BoardState = {
      ...base,
      runStatus: 'paused',
      steps: base.steps.map((step, i) => (i === 0 ? { ...step, status: 'failed', waitingFor: 'decision' } : step)),
    };
    const drawn = await lastDrawnBy(surface, run, board);
    expect(drawn).toContain(links.get(replan.id));
    expect(drawn).not.toContain(links.get(failed.id));
  });
});
