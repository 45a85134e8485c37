/**
 * Contract §5 offers Retry, Skip, Replan and Abort for an unchecked step: a step whose check could not be made (the
 * evaluator model was down) is escalated before what depends on it starts, and Skip accepts its result and goes on.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, clickByText, isSummary, messageWithButtons, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';
import { openAiReply } from '../fakes/openai-server.ts';

const stack = useStack();

describe('an unchecked step', () => {
  it('the evaluator is down: the step is escalated, its dependant waits, and Skip lets it run', async () => {
    const { slack } = stack;
    const channel = 'C83';
    const s1 = { ...step('s1', 'Check /ok', 'http_check', { url: `${stack.targetUrl}/ok` }), expect: 'the site says healthy' };
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'check then announce',
      plan('Check then announce', [s1, step('s2', 'Announce', 'slack_notify', { channel: 'C84', text: 'all good' }, ['s1'])]),
    );
    for (let i = 0; i < 3; i++) stack.openai.enqueue(openAiReply.status(500));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Retry', 'Skip', 'Abort'), 'the escalation', 40_000);
    expect(visibleText(escalation)).toMatch(/could not be checked/);
    expect(visibleText(escalation)).toContain('On hold until someone answers: Announce');
    expect(stack.texts('C84')).toEqual([]);

    await clickByText(stack.tandem.driver, escalation, 'Skip', 'U2');
    await waitFor(slack, () => botMessages(slack, channel, thread).find(isSummary), 'the summary', 30_000);
    expect(stack.texts('C84')).toEqual(['all good']);
    await stack.tandem.untilIdle();
    // The cards and the count agree: both steps ran, one of them unchecked.
    expect(stack.boardText(channel, thread, planMessage.ts)).toContain('2/2 steps done, 1 not checked');
  });
});
