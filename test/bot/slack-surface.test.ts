import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import type { StepStatus } from '../../src/agent/ports/run-store.ts';
import type { BoardState } from '../../src/agent/ports/surface.ts';
import { createSlackGroupDirectory } from '../../src/bot/surface/slack-group-directory.ts';
import { askPolicy } from '../../src/agent/decisions/policy-approval.ts';
import { settingsGate } from '../../src/policy/policy-in-force.ts';
import { createSlackPoster } from '../../src/bot/surface/slack-poster.ts';
import { SlackRefusedError } from '../../src/integrations/tools/thread/slack-poster.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { FULL_PLAN_ACTION } from '../../src/bot/views/plan/full-plan-modal.ts';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN, silentLogger } from '../fakes/slack-harness.ts';
import { makeBoard, makeEscalation, makeOffer, makePlan, makeProposal, makeRun, boardAt as boardOf } from '../fakes/slack-fixtures.ts';

let fake: SlackFakeServer;
let client: InstanceType<typeof webApi.WebClient>;
const run = makeRun({ status: 'executing' });

beforeEach(async () => {
  fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  // Few, quick retries so a 429 storm outlasts the client and the publisher's own retry is exercised.
  client = new webApi.WebClient(BOT_TOKEN, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 1, factor: 1, minTimeout: 10, maxTimeout: 10 },
    logLevel: webApi.LogLevel.ERROR,
  });
});
afterEach(() => fake.stop());

const plan = makePlan(4);
const boardAt = (progress: number, runStatus: BoardState['runStatus'] = 'executing') => boardOf(plan, progress, runStatus);
const boardText = (ts: string) => JSON.stringify(fake.model.findMessage('C1', ts)?.blocks);

describe('SlackSurface', () => {
  it('posts planning… in the thread, then replaces it with the plan', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined });
    await surface.planning(run);
    await surface.proposePlan(makeProposal(plan));
    const thread = fake.model.thread('C1', run.conversation.threadTs);
    expect(thread).toHaveLength(1);
    expect(thread[0]!.text).toContain('Plan v1');
    expect(thread[0]!.threadTs).toBe(run.conversation.threadTs);
  });

  it('replaces planning… with whatever comes next when no plan does (a notice, the summary)', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined });
    await surface.planning(run);
    await surface.notify(run, 'The planner failed: the model refused.');
    const thread = fake.model.thread('C1', run.conversation.threadTs);
    expect(thread.map((m) => m.text)).toEqual(['The planner failed: the model refused.']);
  });

  it('keeps one board message, coalesces fast changes, and ends on the true final state', async () => {
    const posted: string[] = [];
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined, onBoardPosted: async (_runId, ts) => void posted.push(ts) });
    const states = [0, 1, 2, 3, 4].flatMap((p) => [boardAt(p), boardAt(p)]);
    states.push(boardAt(4, 'succeeded'));
    for (const state of states) await surface.reportProgress(run, state);
    await surface.board.settle(run.id);

    const boards = fake.model.thread('C1', run.conversation.threadTs);
    expect(boards).toHaveLength(1);
    expect(posted).toEqual([boards[0]!.ts]);
    const edits = fake.callsOf('chat.postMessage').length + fake.callsOf('chat.update').length;
    expect(edits).toBeLessThan(states.length);
    expect(boardText(boards[0]!.ts)).toContain('Succeeded: Merge PR 42');
    expect(boardText(boards[0]!.ts)).toContain('4/4 steps done');
  });

  it("still ends on the true final board when chat.update is rate limited beyond the client's retries", async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined, boardIntervalMs: 50, boardRetryBaseMs: 50 });
    await surface.reportProgress(run, boardAt(0));
    await surface.board.settle(run.id);
    fake.rateLimit('chat.update', 5, 0);
    await surface.reportProgress(run, boardAt(2));
    await surface.reportProgress(run, boardAt(4, 'failed'));
    await surface.board.settle(run.id);
    const [board] = fake.model.thread('C1', run.conversation.threadTs);
    expect(fake.callsOf('chat.update').filter((c) => c.status === 429).length).toBe(5);
    expect(boardText(board!.ts)).toContain('Failed: Merge PR 42');
  });

  it('posts the board again when its message was deleted, and gives up on a channel it cannot post in', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined, boardIntervalMs: 20, boardRetryBaseMs: 20 });
    await surface.reportProgress(run, boardAt(0));
    await surface.board.settle(run.id);
    const first = fake.model.thread('C1', run.conversation.threadTs)[0]!;
    fake.model.messages.splice(fake.model.messages.indexOf(first), 1);
    await surface.reportProgress(run, boardAt(2));
    await surface.board.settle(run.id);
    const [board] = fake.model.thread('C1', run.conversation.threadTs);
    expect(board!.ts).not.toBe(first.ts);
    expect(boardText(board!.ts)).toContain('2/4 steps done');

    const elsewhere = makeRun({ id: 'run_2', conversation: { channel: 'C1', threadTs: '1.000009' } });
    fake.failWith('chat.postMessage', 'channel_not_found', 1);
    await surface.reportProgress(elsewhere, { ...boardAt(0), runId: 'run_2' });
    await surface.board.settle('run_2');
    expect(fake.callsOf('chat.postMessage').filter((c) => c.params.thread_ts === '1.000009')).toHaveLength(1);
  });

  it('takes the buttons off a plan whose run ended without a click (an expired approval, said as expired), keeps View full plan, and leaves a clicked one', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined });
    const waiting = makeRun({ status: 'awaiting-approval' });
    await surface.proposePlan(makeProposal(plan, { run: waiting }));
    const planTs = fake.model.thread('C1', waiting.conversation.threadTs)[0]!.ts;
    expect(boardText(planTs)).toContain('"type":"actions"');
    await surface.finish({
      run: waiting,
      outcome: 'rejected',
      goal: plan.goal,
      reason: 'Approval expired after 1440 minutes; nothing ran.',
      expired: true,
      changes: [],
      rolledBack: [],
      durationMs: 1000,
      tokens: { input: 0, output: 0 },
      costUsd: 0,
    });
    expect(boardText(planTs)).not.toContain(PLAN_APPROVE_ACTION);
    expect(boardText(planTs)).toContain(FULL_PLAN_ACTION);
    expect(boardText(planTs)).toContain('Plan expired.');
    expect(boardText(planTs)).not.toContain('Run rejected.');

    const clicked = makeRun({ id: 'run_2', status: 'awaiting-approval', conversation: { channel: 'C1', threadTs: '1700.999' } });
    await surface.proposePlan(makeProposal(plan, { run: clicked }));
    const clickedTs = fake.model.thread('C1', '1700.999')[0]!.ts;
    surface.planDecided(clicked.id); // the Reject listener rewrote it already
    const edits = fake.callsOf('chat.update').length;
    await surface.finish({
      run: clicked,
      outcome: 'rejected',
      goal: plan.goal,
      reason: 'Rejected by <@U2>.',
      changes: [],
      rolledBack: [],
      durationMs: 1000,
      tokens: { input: 0, output: 0 },
      costUsd: 0,
    });
    expect(fake.callsOf('chat.update').filter((c) => c.params.ts === clickedTs)).toHaveLength(0);
    expect(fake.callsOf('chat.update').length).toBe(edits);
  });

  it('finishes with the final board before the summary', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined, boardIntervalMs: 50 });
    await surface.reportProgress(run, boardAt(1));
    await surface.reportProgress(run, boardAt(4, 'succeeded'));
    await surface.finish({
      run,
      outcome: 'succeeded',
      goal: plan.goal,
      reason: null,
      changes: [],
      rolledBack: [],
      durationMs: 1000,
      tokens: { input: 1, output: 2 },
      costUsd: 0,
    });
    const thread = fake.model.thread('C1', run.conversation.threadTs);
    expect(thread).toHaveLength(2);
    expect(boardText(thread[0]!.ts)).toContain('Succeeded');
    expect(thread[1]!.text).toContain('Succeeded');
    const lastBoardEdit = fake.calls.findLastIndex(
      (c) => c.method === 'chat.update' || (c.method === 'chat.postMessage' && c.params.text?.startsWith('Succeeded')),
    );
    const summaryPost = fake.calls.findLastIndex((c) => c.method === 'chat.postMessage');
    expect(lastBoardEdit).toBeLessThan(summaryPost);
  });

  it('spaces board edits by the interval as Slack receives them, even when one edit is slow to come back', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined, boardIntervalMs: 200 });
    await surface.reportProgress(run, boardAt(0));
    await surface.board.settle(run.id);
    fake.slow('chat.update', 1, 150);
    for (const progress of [1, 2, 3]) {
      await surface.reportProgress(run, boardAt(progress));
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    await surface.board.settle(run.id);
    const received = fake.callsOf('chat.update').map((call) => call.at);
    expect(received.length).toBeGreaterThan(1);
    for (let i = 1; i < received.length; i += 1) expect(received[i]! - received[i - 1]!).toBeGreaterThanOrEqual(195);
  });

  it('posts the board before an escalation owed at the same moment: the thread reads board first', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined });
    const failed = { ...boardAt(0), steps: boardAt(0).steps.map((step, index) => (index === 0 ? { ...step, status: 'failed' as StepStatus } : step)) };
    // The board's first post is slow to come back; the step failed at once, so its escalation is owed meanwhile.
    fake.slow('chat.postMessage', 1, 300);
    await surface.reportProgress(run, failed);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the board's post is on its way
    await surface.escalate(run, makeEscalation({ runId: run.id }), makeOffer());
    const thread = fake.model.thread('C1', run.conversation.threadTs);
    expect(thread).toHaveLength(2);
    expect(boardText(thread[0]!.ts)).toContain('task_card');
    expect(thread[1]!.text).toMatch(/did not pass its check/);
  });

  it('edits the same board when a late report arrives after the run finished', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined, boardIntervalMs: 50 });
    await surface.reportProgress(run, boardAt(1));
    await surface.finish({
      run,
      outcome: 'cancelled',
      goal: plan.goal,
      reason: null,
      changes: [],
      rolledBack: [],
      durationMs: 1000,
      tokens: { input: 0, output: 0 },
      costUsd: 0,
    });
    await surface.reportProgress(run, boardAt(1, 'cancelled'));
    await surface.board.settle(run.id);
    const thread = fake.model.thread('C1', run.conversation.threadTs);
    expect(thread).toHaveLength(2);
    expect(boardText(thread[0]!.ts)).toContain('Cancelled');
  });

  it("gets a 200-step plan and its board accepted by Slack's limits", async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined, boardIntervalMs: 20 });
    const big = makePlan(200, { longTitles: true });
    await surface.proposePlan(makeProposal(big));
    await surface.reportProgress(run, makeBoard(big));
    await surface.board.settle(run.id);
    // Only what was posted counts: agent sessions are off in this fake workspace, and refused as Slack would.
    expect(fake.calls.filter((c) => c.method.startsWith('chat.') && c.response?.ok === false)).toEqual([]);
    expect(fake.model.thread('C1', run.conversation.threadTs)).toHaveLength(2);
  });

  it("asks the plan's questions of the requester, and tells them plainly what it cannot do", async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined });
    await surface.askRequester(run, ['Which repo?', 'Which <branch>?']);
    await surface.askRequester(run, ['I have no model to plan this with; set PLANNER_MODEL.']);
    const [questions, notice] = fake.model.thread('C1', run.conversation.threadTs);
    expect(questions!.text).toBe('<@UREQ> Which repo? Which &lt;branch&gt;?');
    expect(JSON.stringify(questions!.blocks)).toContain('• Which repo?\\n• Which &lt;branch&gt;?');
    expect(JSON.stringify(questions!.blocks)).toContain('"text":"Answer"');
    expect(notice!.text).toBe('<@UREQ> I have no model to plan this with; set PLANNER_MODEL.');
    expect(JSON.stringify(notice!.blocks)).not.toContain('"text":"Answer"');
  });

  it('asks questions and notifies in the thread, escaping text', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined });
    await surface.ask(run, 's2', 'Which <env>?');
    await surface.notify(run, 'Waiting for CI & deploy');
    const texts = fake.model.thread('C1', run.conversation.threadTs).map((m) => m.text);
    expect(texts[0]).toBe('<@UREQ> Which &lt;env&gt;?'); // no step id in the thread
    expect(texts[1]).toBe('Waiting for CI &amp; deploy');
  });
});

describe('SlackPoster', () => {
  it('posts with the marker in metadata and finds that message again by marker', async () => {
    const poster = createSlackPoster(client);
    const since = new Date(Date.now() - 1000);
    const posted = await poster.postMessage({ channel: 'C2', text: 'deploy done', marker: 'tandem:run_1/s3' });
    expect(posted.permalink).toContain('/archives/C2/');
    expect(await poster.findMessage({ channel: 'C2', marker: 'tandem:run_1/s3', since })).toMatchObject({ ts: posted.ts, channel: 'C2' });
    expect(await poster.findMessage({ channel: 'C2', marker: 'tandem:run_1/s4', since })).toBeUndefined();
  });

  it("tells Slack's refusal (nothing posted) from a post whose fate is unknown", async () => {
    const poster = createSlackPoster(client);
    fake.failWith('chat.postMessage', 'channel_not_found');
    const refused = await poster.postMessage({ channel: 'C404', text: 'hi', marker: 'tandem:run_1/s5' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SlackRefusedError);
    expect(refused).toMatchObject({ slackError: 'channel_not_found' });
  });
});

describe('TANDEM_APPROVERS as the built-in policy, with user groups read from Slack', () => {
  const mayApprove = async (approvers: string[], userId: string) => {
    const gate = settingsGate({ approvers, autoRunReadOnly: false, repos: undefined }, createSlackGroupDirectory({ client, logger: silentLogger() }));
    const step = { id: 's1', tool: 'github_comment', risk: 'write' as const, repository: '', channel: 'C1', target: '', rollback: false };
    const asked = await askPolicy(gate, { user: userId, action: 'approve', resource: { kind: 'step', step }, situation: { requester: 'UREQ', channel: 'C1' } });
    return asked.decision.permitted;
  };

  it('lets anyone approve when TANDEM_APPROVERS is empty', async () => {
    expect(await mayApprove([], 'UANY')).toBe(true);
  });

  it('accepts listed users and members of listed groups', async () => {
    fake.model.usergroups.set('SOPS', ['UMEMBER']);
    expect(await mayApprove(['UBOSS', 'SOPS'], 'UBOSS')).toBe(true);
    expect(await mayApprove(['UBOSS', 'SOPS'], 'UMEMBER')).toBe(true);
    expect(await mayApprove(['UBOSS', 'SOPS'], 'UOTHER')).toBe(false);
  });

  it('fails closed when the group cannot be listed', async () => {
    expect(await mayApprove(['SMISSING'], 'UMEMBER')).toBe(false);
  });
});
