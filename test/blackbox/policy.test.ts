/**
 * TANDEM_POLICY from the outside (issue 32): one `tandem start` with a Cedar policy file, against fake
 * Slack, OpenAI and GitHub. An approver outside the group a rule names is refused with the rule named;
 * a member runs the plan; a rule that takes two approvers shows "1 of 2" and runs on the second; the
 * audit finds every decision permitted by the policy in force when it was made. Then the file changes to
 * another policy: new decisions follow it, the audit still judges the old ones by the old policy, and a
 * decision changed in the store afterwards is reported.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTandem } from '../cli/tandem-process.ts';
import { botMessages, clickByText, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { ephemeralTexts } from './slack-answers.ts';
import { useStack } from './stack.ts';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';

const policyFile = path.join(mkdtempSync(path.join(tmpdir(), 'tandem-policy-')), 'rules.cedar');
/** Policy A lets @api-owners post to CP1-out; policy B (a later change of the file) gives that to @release instead. */
const rules = (group: string, who: string) => `@id("staff-requests") @who("a member of @staff")
permit (principal in Group::"SSTAFF", action == Action::"request", resource);

@id("ops-posts") @who("a member of ${who}") @reason("Posting to CP1-out")
permit (principal in Group::"${group}", action == Action::"approve", resource is Step)
when { resource.tool == "slack_notify" && resource.target == "CP1-out" };

@id("two-for-announcements") @who("two members of @api-owners") @reason("Announcing in CP2-out") @approvals("2")
permit (principal in Group::"SAPIOWNERS", action == Action::"approve", resource is Step)
when { resource.tool == "slack_notify" && resource.target == "CP2-out" };
`;
writeFileSync(policyFile, rules('SAPIOWNERS', '@api-owners'));

const stack = useStack({ env: () => ({ TANDEM_POLICY: policyFile }) });
const { slack } = stack;
slack.model.usergroups.set('SAPIOWNERS', ['U7', 'U8']);
slack.model.usergroups.set('SRELEASE', ['U9']);
slack.model.usergroups.set('SSTAFF', ['U1', 'U3', 'U7', 'U8', 'U9']);

/** Runs SQL on the stopped bot's store: PostgreSQL through DATABASE_URL, else the PGlite folder under DATA_DIR. */
async function sql(query: string): Promise<void> {
  if (stack.env.DATABASE_URL) {
    const client = postgres(stack.env.DATABASE_URL, { max: 1, onnotice: () => {} });
    await client.unsafe(query).finally(() => client.end());
    return;
  }
  const client = await PGlite.create(path.join(stack.env.DATA_DIR!, 'pglite'));
  await client.query(query).finally(() => client.close());
}

describe('TANDEM_POLICY', () => {
  it('refuses a request from someone the policy does not let ask: privately, with the rule named, and nothing is planned', async () => {
    const sent = stack.tandem.driver.mention({ channel: 'CP0', user: 'U4', text: '<@UBOT> post to CP1-out' });
    expect((await sent).status).toBe(200);
    const refused = await waitFor(slack, () => ephemeralTexts(stack, 'U4', 'CP0', 0).find((text) => text.includes('rule')), 'the refusal');
    expect(refused).toContain('Asking me for a run needs a member of @staff (rule `staff-requests`)');
    // The check comes before the run is stored: no plan, no "Planning…", no model call, nothing in the thread.
    expect(botMessages(slack, 'CP0', sent.ts)).toEqual([]);
    expect(stack.openai.requests.length).toBe(0);
  }, 60_000);

  it('refuses an approver outside the group with the rule named, runs on a member, shows 1 of 2 for a two-approver rule; after a policy change new decisions follow the new one and the audit judges old ones by the old one', async () => {
    const one = await stack.planned(
      'CP1',
      'U1',
      'post to CP1-out',
      plan('Post', [step('s1', 'Post it', 'slack_notify', { channel: 'CP1-out', text: 'hello' })]),
    );
    expect(visibleText(one.planMessage)).toContain('step 1 (“Post it”) needs a member of @api-owners');
    const before = slack.model.ephemeralsFor('U3').length;
    await clickByText(stack.tandem.driver, one.planMessage, 'Approve', 'U3');
    const refused = await waitFor(slack, () => ephemeralTexts(stack, 'U3', 'CP1', before).find((text) => text.includes('rule')), 'the refusal');
    expect(refused).toContain('Posting to CP1-out needs a member of @api-owners (rule `ops-posts`)');
    await stack.tandem.untilIdle();
    expect(stack.texts('CP1-out')).toEqual([]);
    await clickByText(stack.tandem.driver, one.planMessage, 'Approve', 'U7');
    await waitFor(slack, () => stack.texts('CP1-out').includes('hello'), 'the post after a member approved', 20_000);

    const two = await stack.planned(
      'CP2',
      'U1',
      'announce in CP2-out',
      plan('Announce', [step('s1', 'Announce', 'slack_notify', { channel: 'CP2-out', text: 'v2 is out' })]),
    );
    expect(visibleText(two.planMessage)).toContain('step 1 (“Announce”) needs two members of @api-owners (0 of 2 approvals)');
    await clickByText(stack.tandem.driver, two.planMessage, 'Approve', 'U7');
    await waitFor(slack, () => botMessages(slack, 'CP2', two.thread).some((m) => visibleText(m).includes('1 of 2 approvals')), 'the thread told 1 of 2');
    // The plan message itself now says how many approvals are still needed, with its buttons for the second approver.
    const planNow = () => visibleText(slack.model.findMessage('CP2', two.planMessage.ts)!);
    await waitFor(slack, () => planNow().includes('step 1 (“Announce”) needs two members of @api-owners (1 of 2 approvals)'), 'the plan showing 1 of 2');
    expect(planNow()).not.toContain('0 of 2');
    await stack.tandem.untilIdle();
    expect(stack.texts('CP2-out')).toEqual([]);
    await clickByText(stack.tandem.driver, two.planMessage, 'Approve', 'U8');
    await waitFor(slack, () => stack.texts('CP2-out').includes('v2 is out'), 'the post after the second approval', 20_000);

    // The policy changes (the file is rewritten and reloaded): posting to CP1-out now takes a member of @release.
    writeFileSync(policyFile, rules('SRELEASE', '@release'));
    await stack.tandem.tandem.waitForLog('policy reloaded', 20_000);
    const three = await stack.planned(
      'CP3',
      'U1',
      'post to CP1-out again',
      plan('Post again', [step('s1', 'Post it again', 'slack_notify', { channel: 'CP1-out', text: 'hello again' })]),
    );
    expect(visibleText(three.planMessage)).toContain('step 1 (“Post it again”) needs a member of @release');
    const beforeB = slack.model.ephemeralsFor('U7').length;
    await clickByText(stack.tandem.driver, three.planMessage, 'Approve', 'U7');
    const refusedUnderB = await waitFor(slack, () => ephemeralTexts(stack, 'U7', 'CP3', beforeB).find((text) => text.includes('rule')), 'the refusal under B');
    expect(refusedUnderB).toContain('Posting to CP1-out needs a member of @release (rule `ops-posts`)');
    await clickByText(stack.tandem.driver, three.planMessage, 'Approve', 'U9');
    await waitFor(slack, () => stack.texts('CP1-out').includes('hello again'), 'the post after a member of @release approved', 20_000);

    // The audit judges U7's old approval by policy A, in force when it was made, and U9's by policy B: clean.
    await stack.tandem.untilIdle();
    expect(await stack.tandem.stop()).toBe(0);
    const audit = async () => {
      const cli = runTandem(['audit'], stack.env, stack.cwd);
      const code = await cli.exited;
      return { code, out: `${cli.stdout()}${cli.stderr()}` };
    };
    const clean = await audit();
    expect(clean.out).toContain('no violations');
    expect(clean.code).toBe(0);

    // A decision changed afterwards is reported: U7's CP1 approval rewritten to claim policy B, which never let
    // @api-owners post to CP1-out; and a forged approval by U3, who was in no group the policy names.
    await sql(
      `update approvals set policy_hash = (select policy_hash from approvals where user_id = 'U9') where user_id = 'U7' and run_id = (select id from runs where channel = 'CP1')`,
    );
    await sql(
      `insert into approvals (run_id, plan_version, user_id, decision, policy_hash, policy_rules, policy_groups) select run_id, plan_version, 'U3', 'approved', policy_hash, policy_rules, '[]'::jsonb from approvals where user_id = 'U9'`,
    );
    const tampered = await audit();
    expect(tampered.code, tampered.out).toBe(1);
    const lines = tampered.out.split('\n').filter((line) => line.includes('[decision-not-permitted]'));
    expect(lines.some((line) => line.includes('permits U7 to approve'))).toBe(true);
    expect(lines.some((line) => line.includes('permits U3 to approve'))).toBe(true);
  }, 180_000);
});
