/**
 * The approval promises of the plan message (what a person sees before approving) and of the click
 * (what it may start), from the outside: one `tandem start` against fake Slack, OpenAI and GitHub.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, clickByText, hasButtons, messageWithButtons, poll, visibleText, waitFor, isSummary } from './harness.ts';
import { plan, step } from './plans.ts';
import { clickSeen, ephemeralTexts, openModify, snapshot, submitYaml } from './slack-answers.ts';
import { ESCALATE, useStack } from './stack.ts';

const stack = useStack();
const { slack } = stack;
const texts = (channel: string) => stack.texts(channel);
const summaryIn = (channel: string, thread: string) => botMessages(slack, channel, thread).find((m) => isSummary(m));

describe('an approval binds to the version whose buttons were clicked', () => {
  it('Approve on v1 after an edit proposed v2 runs nothing and tells the clicker the plan changed; v2 runs only once approved', async () => {
    const channel = 'CA1';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'tell CA1-out v1',
      plan('Tell CA1-out', [
        step('s1', 'Tell it', 'slack_notify', {
          channel: 'CA1-out',
          text: 'from version one',
        }),
      ]),
    );
    const v1AsSeen = snapshot(planMessage);
    const modal = await openModify(stack, planMessage, 'U2', () => clickByText(stack.tandem.driver, planMessage, 'Modify', 'U2'));
    const edited = modal.yaml.replace('from version one', 'from version two');
    expect(edited).not.toBe(modal.yaml);
    const response = await submitYaml(stack, modal, 'U2', edited);
    expect(JSON.stringify(response.body ?? '')).not.toContain('errors');
    const v2 = await waitFor(
      slack,
      () => botMessages(slack, channel, thread).find((m) => m.ts !== planMessage.ts && hasButtons(m, 'Approve') && visibleText(m).includes('from version two')),
      'v2',
    );

    // U3's client still shows v1: the click binds to v1, which is no longer the plan.
    const ephemeralsBefore = slack.model.ephemeralsFor('U3').length;
    expect((await clickSeen(stack, v1AsSeen, 'Approve', 'U3')).status).toBe(200);
    const told = await waitFor(
      slack,
      () => ephemeralTexts(stack, 'U3', channel, ephemeralsBefore).find((t) => /chang|version|v2|newer|outdated|stale/i.test(t)),
      'an ephemeral saying the plan changed',
    );
    expect(told.length).toBeGreaterThan(0);
    await stack.tandem.untilIdle();
    expect(texts('CA1-out')).toEqual([]);

    await clickByText(stack.tandem.driver, v2, 'Approve', 'U3');
    await waitFor(slack, () => summaryIn(channel, thread), 'the summary of v2', 20_000);
    expect(texts('CA1-out')).toEqual(['from version two']);
  });

  it('a stale v1 Reject after v2 was proposed does not end the run: v2 can still be approved', async () => {
    const channel = 'CA2';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'tell CA2-out',
      plan('Tell CA2-out', [
        step('s1', 'Tell it', 'slack_notify', {
          channel: 'CA2-out',
          text: 'alpha',
        }),
      ]),
    );
    const v1AsSeen = snapshot(planMessage);
    const modal = await openModify(stack, planMessage, 'U2', () => clickByText(stack.tandem.driver, planMessage, 'Modify', 'U2'));
    await submitYaml(stack, modal, 'U2', modal.yaml.replace('alpha', 'beta'));
    const v2 = await waitFor(
      slack,
      () => botMessages(slack, channel, thread).find((m) => m.ts !== planMessage.ts && hasButtons(m, 'Approve') && visibleText(m).includes('beta')),
      'v2',
    );
    const before = slack.model.ephemeralsFor('U3').length;
    await clickSeen(stack, v1AsSeen, 'Reject', 'U3');
    await waitFor(slack, () => ephemeralTexts(stack, 'U3', channel, before).length > 0, 'an ephemeral to the stale rejecter');
    await clickByText(stack.tandem.driver, v2, 'Approve', 'U2');
    await waitFor(slack, () => texts('CA2-out').includes('beta'), 'v2 to run', 20_000);
    expect(texts('CA2-out')).toEqual(['beta']);
  });
});

describe('an edit and an Approve of the old version at the same moment', () => {
  it('never runs the edited version without its own approval', async () => {
    // Three races in three channels, one after another; then one wait covers all three (each had at least 2.5 s).
    const threads: { channel: string; thread: string }[] = [];
    for (const n of [1, 2, 3]) {
      const channel = `CA8-${n}`;
      const { thread, planMessage } = await stack.planned(
        channel,
        'U1',
        `race ${n}`,
        plan(`Race ${n}`, [step('s1', 'Tell it', 'slack_notify', { channel: `${channel}-out`, text: 'old version' })]),
      );
      const v1AsSeen = snapshot(planMessage);
      const modal = await openModify(stack, planMessage, 'U2', () => clickByText(stack.tandem.driver, planMessage, 'Modify', 'U2'));
      await Promise.all([submitYaml(stack, modal, 'U2', modal.yaml.replace('old version', 'new version')), clickSeen(stack, v1AsSeen, 'Approve', 'U3')]);
      threads.push({ channel, thread });
    }
    await stack.tandem.untilIdle();
    for (const { channel, thread } of threads) {
      // Either the approval won (v1 ran) or the edit did (v2 waits for its own approval); v2 never ran unapproved.
      expect(texts(`${channel}-out`)).not.toContain('new version');
      expect(texts(`${channel}-out`).length).toBeLessThanOrEqual(1);
      if (texts(`${channel}-out`).length === 0)
        expect(botMessages(slack, channel, thread).some((m) => hasButtons(m, 'Approve') && visibleText(m).includes('new version'))).toBe(true);
    }
  });
});

describe('the plan message shows every target in full', () => {
  const owner = 'platform-engineering-infrastructure';
  const repo = `${owner}/an-exceptionally-long-repository-name-that-goes-on-and-on-for-testing`;
  const tag = 'v2026.11.23-release-candidate-with-an-extremely-long-suffix-000000001';
  const ref = 'refs/heads/release/2026-11-23/hotfix-for-the-payment-gateway-timeouts';

  it('long repository, tag and ref of forward steps and the target of a destructive rollback step are shown whole', async () => {
    const { thread, planMessage } = await stack.planned(
      'CA3',
      'U1',
      'cut the long release',
      plan(
        'Cut the long release',
        [
          step('s1', 'Create the release', 'github_create_release', {
            body: 'x'.repeat(300),
            repo,
            tag,
            target: ref,
            name: 'Long release',
          }),
          step(
            's2',
            'Dispatch the deploy',
            'github_dispatch_workflow',
            {
              inputs: { note: 'y'.repeat(200) },
              repo,
              workflow: 'deploy-to-production-with-canary-and-manual-gates.yml',
              ref,
            },
            ['s1'],
          ),
        ],
        {
          rollback: [
            {
              id: 'r1',
              title: 'Put it back',
              tool: 'github_merge_pull',
              args: { repo: 'victim-org/prod', number: 99 },
            },
          ],
        },
      ),
    );
    // The plan may continue over several messages; together they show everything.
    const shown = botMessages(slack, 'CA3', thread)
      .filter((m) => m.ts >= planMessage.ts)
      .map(visibleText)
      .join('\n');
    expect(shown).toContain(repo);
    expect(shown).toContain(tag);
    expect(shown).toContain(ref);
    expect(shown).toContain('deploy-to-production-with-canary-and-manual-gates.yml');
    expect(shown).toContain('victim-org/prod');
    expect(shown).toMatch(/victim-org\/prod\D{0,40}99\b|\b99\D{0,40}victim-org\/prod/);
    // A destructive rollback step makes the plan destructive.
    expect(shown).toMatch(/destructive/i);
  });

  it('a destructive rollback step needs an approver other than the requester', async () => {
    const channel = 'CA4';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U2',
      'note, with a merge as rollback',
      plan(
        'Note it',
        [
          step('s1', 'Note it', 'slack_notify', {
            channel: 'CA4-out',
            text: 'noted',
          }),
        ],
        {
          rollback: [
            {
              id: 'r1',
              title: 'Merge the revert',
              tool: 'github_merge_pull',
              args: { repo: 'acme/api', number: 7 },
            },
          ],
        },
      ),
    );
    const before = slack.model.ephemeralsFor('U2').length;
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(slack, () => ephemeralTexts(stack, 'U2', channel, before).length > 0, 'an ephemeral to the requester');
    await stack.tandem.untilIdle();
    expect(texts('CA4-out')).toEqual([]);
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U3');
    await waitFor(slack, () => summaryIn(channel, thread), 'the run approved by U3', 20_000);
    expect(texts('CA4-out')).toEqual(['noted']);
  });
});

describe('only approvers may approve', () => {
  it('a read-only plan too: a bystander is told why privately and nothing runs; an approver may', async () => {
    const channel = 'CA5';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'look at the repository',
      plan('Look at the repository', [step('s1', 'Get the repository', 'github_get_repo', { repo: 'acme/api' })]),
    );
    const reads = () => stack.github.requests.filter((r) => r.path === '/repos/acme/api').length;
    const before = { told: slack.model.ephemeralsFor('U9').length, reads: reads() };
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U9');
    await waitFor(slack, () => ephemeralTexts(stack, 'U9', channel, before.told).length > 0, 'an ephemeral to the bystander');
    // Who may approve, by name (the approver list is short enough to name).
    expect(ephemeralTexts(stack, 'U9', channel, before.told).join(' ')).toContain('Only <@U2>, <@U3> or <!subteam^SAPPROVERS> may approve');
    await stack.tandem.untilIdle();
    expect(reads()).toBe(before.reads);
    expect(summaryIn(channel, thread)).toBeUndefined();
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(slack, () => summaryIn(channel, thread), 'the run approved by U2', 20_000);
    expect(reads()).toBeGreaterThan(before.reads);
  });
});

describe('a failed write escalates instead of replanning by itself', () => {
  it('a comment on an issue that does not exist escalates with the ping and Retry/Skip/Replan/Abort; the planner is not asked again', async () => {
    const channel = 'CA5';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'comment on 4242',
      plan('Comment on 4242', [
        step('s1', 'Comment', 'github_comment', {
          repo: 'acme/api',
          number: 4242,
          body: 'hello',
        }),
      ]),
    );
    const requests = stack.openai.requests.length;
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
    expect(visibleText(escalation)).toContain(`<!subteam^${ESCALATE}>`);
    expect(visibleText(escalation)).toMatch(/Comment|4242|not found|404/i);
    expect(stack.openai.requests.length).toBe(requests);
    await clickByText(stack.tandem.driver, escalation, 'Abort', 'U2');
    await waitFor(slack, () => botMessages(slack, channel, thread).some((m) => /abort/i.test(visibleText(m)) && isSummary(m)), 'the aborted summary', 20_000);
  });
});

describe('a whole-value reference keeps its type', () => {
  it('"number": "{{steps.s1.output.number}}" comments on the issue the first step created', async () => {
    const channel = 'CA6';
    stack.github.addRepo('acme/typed');
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'file and comment',
      plan('File an issue and comment on it', [
        step('s1', 'File it', 'github_create_issue', {
          repo: 'acme/typed',
          title: 'Typed',
        }),
        step(
          's2',
          'Comment on it',
          'github_comment',
          {
            repo: 'acme/typed',
            number: '{{steps.s1.output.number}}',
            body: 'on the new one',
          },
          ['s1'],
        ),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const repo = stack.github.repos.get('acme/typed')!;
    await poll(() => repo.comments.length === 1, 'the comment', 20_000);
    expect(repo.issues).toHaveLength(1);
    expect(stack.github.requests.some((r) => r.method === 'POST' && r.path === `/repos/acme/typed/issues/${repo.issues[0]!.number}/comments`)).toBe(true);
    await waitFor(slack, () => summaryIn(channel, thread), 'the summary', 20_000);
  });

  it('a whole-value reference whose value does not fit the schema is refused after filling: nothing is written', async () => {
    const channel = 'CA7';
    stack.github.addRepo('acme/untyped');
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'file and comment on the url',
      plan('File an issue and comment on its URL', [
        step('s1', 'File it', 'github_create_issue', {
          repo: 'acme/untyped',
          title: 'Untyped',
        }),
        step(
          's2',
          'Comment on it',
          'github_comment',
          {
            repo: 'acme/untyped',
            number: '{{steps.s1.output.url}}',
            body: 'never',
          },
          ['s1'],
        ),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(
      slack,
      () =>
        messageWithButtons(slack, channel, thread, 'Retry', 'Skip', 'Replan', 'Abort') || /fail|error/i.test(stack.boardText(channel, thread, planMessage.ts)),
      'the step refused',
      20_000,
    );
    expect(stack.github.repos.get('acme/untyped')!.comments).toEqual([]);
    expect(stack.github.requests.filter((r) => r.method === 'POST' && /\/comments$/.test(r.path) && r.path.includes('acme/untyped'))).toEqual([]);
  });
});
