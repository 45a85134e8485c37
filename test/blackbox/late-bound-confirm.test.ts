/**
 * A write whose target is filled in at run time from a person's answer or a model's output waits for an
 * approver's Confirm with the filled-in values shown; answers count from the requester or an approver.
 */
import { describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { botMessages, clickByText, messageWithButtons, poll, visibleText, waitFor, isSummary } from './harness.ts';
import { plan, step } from './plans.ts';
import { ephemeralTexts } from './slack-answers.ts';
import { useStack } from './stack.ts';

const stack = useStack();
const { slack } = stack;
const texts = (channel: string) => stack.texts(channel);
const confirmIn = (channel: string, thread: string) => messageWithButtons(slack, channel, thread, 'Confirm', 'Abort');
/** The bot's question in the thread: a message after the plan (whose step args also carry the question). */
const questionIn = (channel: string, thread: string, planTs: string, question: string) =>
  botMessages(slack, channel, thread).find((m) => m.ts > planTs && visibleText(m).includes(question));

describe('a merge whose pull number comes from ask_human', () => {
  const channel = 'CB1';
  let thread: string;
  let pullNumber: number;

  it("a bystander's answer is refused privately, naming who may answer, and nothing is recorded", async () => {
    stack.github.addPull('acme/api', { title: 'Decoy', head: 'decoy' });
    pullNumber = stack.github.addPull('acme/api', {
      title: 'The real one',
      head: 'real',
    }).number;
    let planMessage: FakeMessage;
    ({ thread, planMessage } = await stack.planned(
      channel,
      'U2',
      'merge the pull I name',
      plan('Merge the pull the requester names', [
        step('s1', 'Ask which pull', 'ask_human', {
          question: 'Which pull of acme/api should I merge?',
        }),
        step('s2', 'Merge it', 'github_merge_pull', { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, ['s1']),
      ]),
    ));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U3');
    await waitFor(slack, () => questionIn(channel, thread, planMessage.ts, 'Which pull of acme/api should I merge?'), 'the question', 20_000);
    const before = slack.model.ephemeralsFor('U9').length;
    await stack.tandem.driver.mention({
      channel,
      user: 'U9',
      text: `<@UBOT> ${pullNumber - 1}`,
      threadTs: thread,
    });
    const told = await waitFor(slack, () => ephemeralTexts(stack, 'U9', channel, before)[0], 'an ephemeral to the bystander');
    expect(told).toMatch(/<@U2>|requester|approver/i);
    await stack.tandem.untilIdle();
    expect(confirmIn(channel, thread)).toBeUndefined();
    expect([...stack.github.repos.get('acme/api')!.pulls.values()].filter((p) => p.merged)).toEqual([]);
  });

  it("the requester's answer fills the number, and the merge waits for a Confirm that shows it", async () => {
    await stack.tandem.driver.mention({
      channel,
      user: 'U2',
      text: `<@UBOT> #${pullNumber}`,
      threadTs: thread,
    });
    const confirm = await waitFor(slack, () => confirmIn(channel, thread), 'the Confirm request', 20_000);
    const shown = visibleText(confirm);
    expect(shown).toContain('acme/api');
    expect(shown).toMatch(new RegExp(`\\b${pullNumber}\\b`));
    await stack.tandem.untilIdle();
    expect(stack.github.repos.get('acme/api')!.pulls.get(pullNumber)!.merged).toBe(false);
  });

  it('the requester may not confirm a destructive step, nor may a non-approver; another approver may', async () => {
    const confirm = confirmIn(channel, thread)!;
    for (const user of ['U2', 'U9']) {
      const before = slack.model.ephemeralsFor(user).length;
      await clickByText(stack.tandem.driver, confirm, 'Confirm', user);
      await waitFor(slack, () => ephemeralTexts(stack, user, channel, before).length > 0, `an ephemeral to ${user}`);
    }
    await stack.tandem.untilIdle();
    expect(stack.github.requests.filter((r) => r.method === 'PUT')).toEqual([]);
    await clickByText(stack.tandem.driver, confirmIn(channel, thread) ?? confirm, 'Confirm', 'U3');
    await poll(() => stack.github.repos.get('acme/api')!.pulls.get(pullNumber)!.merged, 'the merge', 20_000);
    expect([...stack.github.repos.get('acme/api')!.pulls.values()].filter((p) => p.merged).map((p) => p.number)).toEqual([pullNumber]);
  });
});

describe('a notice whose channel comes from llm_task', () => {
  it('waits for Confirm with the channel shown; Abort ends the run and nothing is posted', async () => {
    const channel = 'CB2';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'pick a channel and tell it',
      plan('Pick a channel and tell it', [
        step('s1', 'Pick the channel', 'llm_task', {
          instruction: 'Name the channel to tell',
        }),
        step('s2', 'Tell it', 'slack_notify', { channel: '{{steps.s1.output.text}}', text: 'picked by a model' }, ['s1']),
      ]),
    );
    stack.openai.enqueue(openAiReply.json({ text: 'CB2-picked' }));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const confirm = await waitFor(slack, () => confirmIn(channel, thread), 'the Confirm request', 20_000);
    expect(visibleText(confirm)).toContain('CB2-picked');
    expect(texts('CB2-picked')).toEqual([]);
    await clickByText(stack.tandem.driver, confirm, 'Abort', 'U2');
    await waitFor(slack, () => botMessages(slack, channel, thread).some((m) => /abort/i.test(visibleText(m)) && isSummary(m)), 'the aborted summary', 20_000);
    expect(texts('CB2-picked')).toEqual([]);
  });

  it('a write whose target is fixed and only its content comes from a person needs no Confirm', async () => {
    const channel = 'CB3';
    const issue = stack.github.addIssue('acme/api', { title: 'Notes' });
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'ask for a note and comment it',
      plan('Comment the note a person gives', [
        step('s1', 'Ask for the note', 'ask_human', {
          question: 'What should the note say?',
        }),
        step(
          's2',
          'Comment it',
          'github_comment',
          {
            repo: 'acme/api',
            number: issue.number,
            body: 'note: {{steps.s1.output.answer}}',
          },
          ['s1'],
        ),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(slack, () => questionIn(channel, thread, planMessage.ts, 'What should the note say?'), 'the question', 20_000);
    await stack.tandem.driver.mention({
      channel,
      user: 'U1',
      text: '<@UBOT> ship on friday',
      threadTs: thread,
    });
    await poll(() => stack.github.repos.get('acme/api')!.comments.find((c) => c.body.includes('ship on friday')), 'the comment', 20_000);
    expect(confirmIn(channel, thread)).toBeUndefined();
  });
});

describe('a rollback merge whose pull number comes from ask_human', () => {
  it('runs on Abort only once another approver confirms the number shown; the requester may not', async () => {
    const channel = 'CB4';
    const pull = stack.github.addPull('acme/api', { title: 'named by a person', head: 'named' });
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'ask, note, comment, and merge the named PR to undo',
      plan(
        'Ask, note, comment; undo by merging the PR the person names',
        [
          step('s1', 'Ask which PR', 'ask_human', { question: 'Which PR number?' }),
          step('s2', 'Note it', 'slack_notify', { channel: 'CB4-log', text: 'noted' }, ['s1']),
          step('s3', 'Comment on a missing issue', 'github_comment', { repo: 'acme/api', number: 4242, body: 'x' }, ['s2']),
        ],
        { rollback: [{ id: 'r1', title: 'Merge the named PR', tool: 'github_merge_pull', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}' } }] },
      ),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(slack, () => questionIn(channel, thread, planMessage.ts, 'Which PR number?'), 'the question', 20_000);
    await stack.tandem.driver.mention({ channel, user: 'U1', text: `<@UBOT> ${pull.number}`, threadTs: thread });
    const escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
    await clickByText(stack.tandem.driver, escalation, 'Abort', 'U2');

    const confirm = await waitFor(slack, () => confirmIn(channel, thread), 'the Confirm request for the rollback step', 20_000);
    expect(visibleText(confirm)).toMatch(new RegExp(`acme/api[\\s\\S]*\\b${pull.number}\\b`));
    const before = slack.model.ephemeralsFor('U1').length;
    await clickByText(stack.tandem.driver, confirm, 'Confirm', 'U1');
    await waitFor(slack, () => ephemeralTexts(stack, 'U1', channel, before).length > 0, 'an ephemeral to the requester');
    await stack.tandem.untilIdle();
    expect(pull.merged).toBe(false);

    await clickByText(stack.tandem.driver, confirmIn(channel, thread) ?? confirm, 'Confirm', 'U3');
    const summary = await waitFor(
      slack,
      () => botMessages(slack, channel, thread).find((m) => /abort/i.test(visibleText(m)) && isSummary(m)),
      'the aborted summary',
      20_000,
    );
    expect(pull.merged).toBe(true);
    expect(visibleText(summary)).toContain('Merge the named PR');
  });
});
