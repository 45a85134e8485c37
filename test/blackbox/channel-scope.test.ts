/**
 * `/tandem status` and `/tandem cancel` act on the channel where the command is typed, and a "cancel" in a
 * run's thread counts from the requester or an approver only.
 */
import { describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { botMessages, clickByText, waitFor, isSummary } from './harness.ts';
import { plan, step } from './plans.ts';
import { commandAnswer, ephemeralTexts } from './slack-answers.ts';
import { useStack } from './stack.ts';

const stack = useStack();
const { slack } = stack;
const texts = (channel: string) => stack.texts(channel);

/** An approved run in `channel` that waits `seconds`, then tells `<channel>-out`; resolves once its board shows. */
async function waitingRun(channel: string, goal: string, seconds: number): Promise<{ thread: string; planMessage: FakeMessage; runId: string }> {
  const { thread, planMessage } = await stack.planned(
    channel,
    'U1',
    goal.toLowerCase(),
    plan(goal, [
      step('s1', 'Wait a while', 'wait', { seconds }),
      step('s2', 'Tell it', 'slack_notify', { channel: `${channel}-out`, text: 'after the wait' }, ['s1']),
    ]),
  );
  await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
  await waitFor(slack, () => stack.board(channel, thread, planMessage.ts), 'the board', 15_000);
  const runs = await commandAnswer(stack, 'U1', channel, 'status');
  const runId =
    /\b(run[_-][A-Za-z0-9_-]+)/.exec(runs.split('\n').find((l) => l.toLowerCase().includes(goal.toLowerCase())) ?? runs)?.[1] ??
    /\b(run[_-][A-Za-z0-9_-]+)/.exec(stack.boardText(channel, thread, planMessage.ts))?.[1];
  expect(runId, `a run id in: ${runs}`).toBeDefined();
  return { thread, planMessage, runId: runId! };
}

const ended = (channel: string, thread: string) => botMessages(slack, channel, thread).some((m) => isSummary(m));

describe('/tandem status and cancel are scoped to the channel', () => {
  it('status in another channel does not list the run; cancel from there does not stop it; cancel from its own channel does', async () => {
    const first = await waitingRun('CE1', 'Wait in CE1, then tell', 4);
    const elsewhere = await commandAnswer(stack, 'U1', 'CE2', 'status');
    expect(elsewhere).not.toContain(first.runId);
    expect(elsewhere.toLowerCase()).not.toContain('wait in ce1, then tell');
    const here = await commandAnswer(stack, 'U1', 'CE1', 'status');
    expect(here).toContain(first.runId);

    await commandAnswer(stack, 'U1', 'CE2', `cancel ${first.runId}`);
    await waitFor(slack, () => texts('CE1-out').includes('after the wait'), 'the run to go on after a cancel from another channel', 20_000);
    expect(stack.boardText('CE1', first.thread, first.planMessage.ts)).not.toMatch(/^cancelled/i);

    const second = await waitingRun('CE3', 'Wait in CE3, then tell', 3);
    await commandAnswer(stack, 'U1', 'CE3', `cancel ${second.runId}`);
    await waitFor(slack, () => /^cancelled/i.test(stack.boardText('CE3', second.thread, second.planMessage.ts)), 'the board to end cancelled', 15_000);
    await stack.tandem.untilIdle();
    expect(texts('CE3-out')).toEqual([]);
  }, 40_000);
});

describe('"cancel" in a run thread', () => {
  it('from a bystander is refused privately naming who may, and the run goes on; from the requester it stops the run', async () => {
    const bystander = await waitingRun('CE4', 'Wait in CE4, then tell', 3);
    const before = slack.model.ephemeralsFor('U9').length;
    await stack.tandem.driver.mention({ channel: 'CE4', user: 'U9', text: '<@UBOT> cancel', threadTs: bystander.thread });
    const told = await waitFor(slack, () => ephemeralTexts(stack, 'U9', 'CE4', before)[0], 'an ephemeral to the bystander');
    expect(told).toMatch(/<@U1>|requester|approver/i);
    await waitFor(slack, () => texts('CE4-out').includes('after the wait') && ended('CE4', bystander.thread), 'the run to finish anyway', 20_000);
    expect(stack.boardText('CE4', bystander.thread, bystander.planMessage.ts)).not.toMatch(/^cancelled/i);

    const requester = await waitingRun('CE5', 'Wait in CE5, then tell', 3);
    await stack.tandem.driver.mention({ channel: 'CE5', user: 'U1', text: '<@UBOT> cancel', threadTs: requester.thread });
    await waitFor(slack, () => /^cancelled/i.test(stack.boardText('CE5', requester.thread, requester.planMessage.ts)), 'the board to end cancelled', 15_000);
    await stack.tandem.untilIdle();
    expect(texts('CE5-out')).toEqual([]);
  }, 40_000);
});
