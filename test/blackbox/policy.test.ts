/**
 * TANDEM_POLICY from the outside (issue 32): one `tandem start` with a Cedar policy file, against fake
 * Slack, OpenAI and GitHub. An approver outside the group a rule names is refused with the rule named;
 * a member runs the plan; a rule that takes two approvers shows "1 of 2" and runs on the second; the
 * audit finds every decision permitted by the policy in force when it was made.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTandem } from '../cli/tandem-process.ts';
import { botMessages, clickByText, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { ephemeralTexts, sleep } from './slack-answers.ts';
import { useStack } from './stack.ts';

const policyFile = path.join(mkdtempSync(path.join(tmpdir(), 'tandem-policy-')), 'rules.cedar');
writeFileSync(
  policyFile,
  `@id("anyone-requests")
permit (principal, action == Action::"request", resource);

@id("ops-posts") @who("a member of @api-owners") @reason("Posting to CP1-out")
permit (principal in Group::"SAPIOWNERS", action == Action::"approve", resource is Step)
when { resource.tool == "slack_notify" && resource.target == "CP1-out" };

@id("two-for-announcements") @who("two members of @api-owners") @reason("Announcing in CP2-out") @approvals("2")
permit (principal in Group::"SAPIOWNERS", action == Action::"approve", resource is Step)
when { resource.tool == "slack_notify" && resource.target == "CP2-out" };
`,
);

const stack = useStack({ env: () => ({ TANDEM_POLICY: policyFile }) });
const { slack } = stack;
slack.model.usergroups.set('SAPIOWNERS', ['U7', 'U8']);

describe('TANDEM_POLICY', () => {
  it('refuses an approver outside the group with the rule named, runs on a member, shows 1 of 2 for a two-approver rule, and the audit is clean', async () => {
    const one = await stack.planned(
      'CP1',
      'U1',
      'post to CP1-out',
      plan('Post', [step('s1', 'Post it', 'slack_notify', { channel: 'CP1-out', text: 'hello' })]),
    );
    expect(visibleText(one.planMessage)).toContain('s1 needs a member of @api-owners');
    const before = slack.model.ephemeralsFor('U3').length;
    await clickByText(stack.tandem.driver, one.planMessage, 'Approve', 'U3');
    const refused = await waitFor(slack, () => ephemeralTexts(stack, 'U3', 'CP1', before).find((text) => text.includes('rule')), 'the refusal');
    expect(refused).toContain('Posting to CP1-out needs a member of @api-owners (rule `ops-posts`)');
    await sleep(1000);
    expect(stack.texts('CP1-out')).toEqual([]);
    await clickByText(stack.tandem.driver, one.planMessage, 'Approve', 'U7');
    await waitFor(slack, () => stack.texts('CP1-out').includes('hello'), 'the post after a member approved', 20_000);

    const two = await stack.planned(
      'CP2',
      'U1',
      'announce in CP2-out',
      plan('Announce', [step('s1', 'Announce', 'slack_notify', { channel: 'CP2-out', text: 'v2 is out' })]),
    );
    expect(visibleText(two.planMessage)).toContain('s1 needs two members of @api-owners (0 of 2 approvals)');
    await clickByText(stack.tandem.driver, two.planMessage, 'Approve', 'U7');
    await waitFor(slack, () => botMessages(slack, 'CP2', two.thread).some((m) => visibleText(m).includes('1 of 2 approvals')), 'the thread told 1 of 2');
    await sleep(1000);
    expect(stack.texts('CP2-out')).toEqual([]);
    await clickByText(stack.tandem.driver, two.planMessage, 'Approve', 'U8');
    await waitFor(slack, () => stack.texts('CP2-out').includes('v2 is out'), 'the post after the second approval', 20_000);

    await sleep(1500);
    expect(await stack.tandem.stop()).toBe(0);
    const audit = runTandem(['audit'], stack.env, stack.cwd);
    const code = await audit.exited;
    expect(`${audit.stdout()}${audit.stderr()}`).toContain('no violations');
    expect(code).toBe(0);
  }, 120_000);
});
