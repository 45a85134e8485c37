/**
 * Through Slack's wire: a target filled in at run time waits for an approver's Confirm,
 * and the plan message shows every write's target in full. One `tandem start` process, fake Slack /
 * OpenAI / GitHub, each test in its own channel. Expectations come from the product's documented behaviour only.
 */
import { describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { botMessages, buttonsOf, clickByText, messageWithButtons, poll, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

// TANDEM_APPROVERS is U2, U3 and the group SAPPROVERS (U5); U4 is a bystander.
const stack = useStack();
const { slack } = stack;

const merges = (number: number) => stack.github.requests.filter((r) => r.method === 'PUT' && r.path.endsWith(`/pulls/${number}/merge`)).length;
const ephemeralTo = (user: string, channel: string, after: number) =>
  waitFor(
    slack,
    () =>
      slack.model
        .ephemeralsFor(user)
        .filter((e) => e.channel === channel)
        .at(after),
    `an ephemeral to ${user}`,
  );

/** Requested by U2, approved by U3 (four-eyes), the question answered by the requester with `answer`; resolves with the Confirm message. */
async function mergeTheNamedPull(
  channel: string,
  answer: string,
  extraSteps: ReturnType<typeof step>[] = [],
  rollback: ReturnType<typeof plan>['rollback'] = [],
) {
  const artifact = plan(
    'Merge the pull request the requester names',
    [
      ...extraSteps,
      step('s1', 'Ask which PR', 'ask_human', { question: 'Which PR should I merge?' }),
      step('s2', 'Merge it', 'github_merge_pull', { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, ['s1', ...extraSteps.map((s) => s.id)]),
    ],
    { rollback },
  );
  const { thread, planMessage } = await stack.planned(channel, 'U2', 'merge the PR I name', artifact);
  await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U3');
  await waitFor(slack, () => botMessages(slack, channel, thread).some((m) => visibleText(m).includes('Which PR should I merge?')), 'the question');
  // As a person would: answer once the board shows the step waiting for it.
  await waitFor(slack, () => botMessages(slack, channel, thread).some((m) => /waiting for an answer/.test(visibleText(m))), 'the board waiting for the answer');
  await stack.tandem.driver.mention({ channel, user: 'U2', text: `<@UBOT> ${answer}`, threadTs: thread });
  const confirm = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Confirm', 'Abort'), 'the Confirm request', 20_000);
  return { thread, confirm };
}

describe('a target filled in from an answer waits for Confirm', () => {
  it('shows the filled-in values; the requester’s Confirm is refused (destructive); an approver’s Confirm merges it exactly once', async () => {
    const pull = stack.github.addPull('acme/api', { title: 'Someone else’s change', head: 'bystander' });
    const { confirm } = await mergeTheNamedPull('C60', String(pull.number));
    const shown = visibleText(confirm);
    const confirmButton = buttonsOf(confirm).find((button) => button.text === 'Confirm')!;
    expect(shown).toContain('acme/api');
    expect(shown).toContain(`= ${pull.number}`);
    expect(shown).toContain('Confirm');
    await stack.tandem.untilIdle();
    expect(pull.merged).toBe(false);

    await clickByText(stack.tandem.driver, confirm, 'Confirm', 'U2');
    expect(visibleText(await ephemeralTo('U2', 'C60', 0))).toMatch(/other than the person who asked/);
    await clickByText(stack.tandem.driver, confirm, 'Confirm', 'U4');
    // The refusal names who may (the approver list), not the setting.
    expect(visibleText(await ephemeralTo('U4', 'C60', 0))).toContain('Only <@U2>, <@U3> or <!subteam^SAPPROVERS> may confirm');
    expect(pull.merged).toBe(false);

    await clickByText(stack.tandem.driver, confirm, 'Confirm', 'U3');
    await poll(() => pull.merged, 'the merge');
    // A second approver clicking the same (stale) button changes nothing.
    await stack.tandem.driver.click({
      user: 'U5',
      channel: 'C60',
      messageTs: confirm.ts,
      threadTs: confirm.threadTs,
      actionId: confirmButton.actionId,
      value: confirmButton.value,
      blockId: confirmButton.blockId,
    });
    // The merge is instant, so the run may already have ended by the time this click is handled: either way the
    // stale Confirm is refused and says why.
    expect(visibleText(await ephemeralTo('U5', 'C60', 0))).toMatch(/already confirmed by <@U3>|already ended \(succeeded\); nothing was done/);
    await waitFor(slack, () => stack.texts('C60').some((text) => /succeeded/i.test(text)), 'the summary');
    expect(merges(pull.number)).toBe(1);
  });

  it('Abort ends the run as an Abort does: nothing is merged and the rollback runs', async () => {
    const pull = stack.github.addPull('acme/api', { title: 'Not this one', head: 'not-this' });
    const note = step('s0', 'Note the start', 'slack_notify', { channel: 'C61', text: 'starting' });
    const { thread, confirm } = await mergeTheNamedPull(
      'C62',
      String(pull.number),
      [note],
      [{ id: 'r1', title: 'Say it was undone', tool: 'slack_notify', args: { channel: 'C61', text: 'rolled back' } }],
    );
    await clickByText(stack.tandem.driver, confirm, 'Abort', 'U3');
    const summary = await waitFor(
      slack,
      () => botMessages(slack, 'C62', thread).find((m) => /aborted/i.test(visibleText(m)) && m.ts > confirm.ts),
      'the aborted summary',
    );
    expect(visibleText(summary)).toMatch(/aborted/i);
    await waitFor(slack, () => stack.texts('C61').includes('rolled back'), 'the rollback');
    expect(pull.merged).toBe(false);
    expect(merges(pull.number)).toBe(0);
  });
});

describe('the plan message shows every target in full', () => {
  it('long repositories, refs and tags, and a rollback that merges victim-org/prod#99, are all there to read', async () => {
    const longRepo = `victim-org/${'r'.repeat(89)}`;
    const longRef = `release/${'f'.repeat(92)}`;
    const longTag = `v9.9.9-${'t'.repeat(93)}`;
    const artifact = plan(
      'Ship a release',
      [
        step('s1', 'Create the release', 'github_create_release', { body: 'notes '.repeat(100), repo: longRepo, tag: longTag, target: longRef }),
        step('s2', 'Deploy it', 'github_dispatch_workflow', { inputs: { env: 'production' }, ref: longRef, repo: longRepo, workflow: 'deploy.yml' }, ['s1']),
        step('s3', 'Tell people', 'slack_notify', { text: 'released '.repeat(50), channel: '#releases' }, ['s2']),
      ],
      { rollback: [{ id: 'r1', title: 'Undo', tool: 'github_merge_pull', args: { repo: 'victim-org/prod', number: 99 } }] },
    );
    const { thread } = await stack.planned('C63', 'U1', 'ship it', artifact);
    const text = botMessages(slack, 'C63', thread)
      .map((m: FakeMessage) => visibleText(m))
      .join('\n');
    for (const target of [longRepo, longRef, longTag, 'deploy.yml', '#releases']) expect(text, target).toContain(target);
    expect(text).toContain('victim-org/prod#99');
    expect(text).toMatch(/Destructive steps/);
  });
});
