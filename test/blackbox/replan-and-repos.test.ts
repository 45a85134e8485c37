/**
 * Only a version that was itself approved ever runs, also when the planner proposed it (Replan); and with
 * TANDEM_REPOS set, a repository filled in at run time is checked before its step runs.
 */
import { describe, expect, it } from 'vitest';
import { openAiReply } from '../fakes/openai-server.ts';
import { botMessages, clickByText, hasButtons, messageWithButtons, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { clickSeen, ephemeralTexts, snapshot } from './slack-answers.ts';
import { useStack } from './stack.ts';

const stack = useStack({ env: () => ({ TANDEM_REPOS: 'acme/*' }) });
const { slack } = stack;

describe('a version the planner proposed on Replan', () => {
  it('does not run until it is approved itself; a stale Approve of v1 is refused', async () => {
    const channel = 'CH1';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'check broken',
      plan('Check a broken site', [step('s1', 'Check broken', 'http_check', { url: `${stack.targetUrl}/down`, expectStatus: 200 })]),
    );
    const v1AsSeen = snapshot(planMessage);
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
    stack.openai.enqueue(openAiReply.json(plan('Tell instead', [step('s1', 'Tell CH1-out', 'slack_notify', { channel: 'CH1-out', text: 'from the replan' })])));
    await clickByText(stack.tandem.driver, escalation, 'Replan', 'U2');
    const v2 = await waitFor(
      slack,
      () => botMessages(slack, channel, thread).find((m) => m.ts !== planMessage.ts && hasButtons(m, 'Approve') && visibleText(m).includes('Tell instead')),
      'v2',
      20_000,
    );
    await stack.tandem.untilIdle();
    expect(stack.texts('CH1-out')).toEqual([]);

    const before = slack.model.ephemeralsFor('U3').length;
    await clickSeen(stack, v1AsSeen, 'Approve', 'U3');
    await waitFor(slack, () => ephemeralTexts(stack, 'U3', channel, before).length > 0, 'an ephemeral to the stale approver');
    await stack.tandem.untilIdle();
    expect(stack.texts('CH1-out')).toEqual([]);

    await clickByText(stack.tandem.driver, v2, 'Approve', 'U3');
    await waitFor(slack, () => stack.texts('CH1-out').includes('from the replan'), 'v2 to run once approved', 20_000);
  });
});

describe('TANDEM_REPOS and a repository filled in at run time', () => {
  it('a repository off the list, named in an answer, is never written to', async () => {
    stack.github.addRepo('victim-org/prod');
    const channel = 'CH2';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'file an issue where I say',
      plan('File an issue in the repository the requester names', [
        step('s1', 'Ask where', 'ask_human', { question: 'Which repository should get the issue?' }),
        step('s2', 'File it', 'github_create_issue', { repo: '{{steps.s1.output.answer}}', title: 'Filed where told' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(
      slack,
      () => botMessages(slack, channel, thread).some((m) => m.ts > planMessage.ts && visibleText(m).includes('Which repository should get the issue?')),
      'the question',
      20_000,
    );
    await stack.tandem.driver.mention({ channel, user: 'U1', text: '<@UBOT> victim-org/prod', threadTs: thread });
    // Whether it first asks for a Confirm or refuses at once, an approver's Confirm must not get it through.
    const stopped = await waitFor(
      slack,
      () =>
        messageWithButtons(slack, channel, thread, 'Confirm') ??
        messageWithButtons(slack, channel, thread, 'Retry', 'Abort') ??
        botMessages(slack, channel, thread).find((m) => /TANDEM_REPOS|allow/i.test(visibleText(m))),
      'the step held or refused',
      20_000,
    );
    if (hasButtons(stopped, 'Confirm')) await clickByText(stack.tandem.driver, stopped, 'Confirm', 'U3');
    await stack.tandem.untilIdle();
    expect(stack.github.requests.filter((r) => r.path.startsWith('/repos/victim-org/') && r.method !== 'GET')).toEqual([]);
    expect(stack.github.repos.get('victim-org/prod')!.issues).toEqual([]);
    expect(botMessages(slack, channel, thread).map(visibleText).join('\n')).toMatch(/TANDEM_REPOS|allow-?list/i);
  });
});
