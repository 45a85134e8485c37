/**
 * Contract §2: TANDEM_RUN_TIMEOUT_S is a budget for running the plan, and a plan may be approved any time
 * within TANDEM_APPROVAL_TTL_S. A plan approved after longer than the run limit runs: its clock starts at
 * the approval, not at the mention. Time the run then only waits for a person does not count either
 * (decision 055); time its own steps take does.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, clickByText, isSummary, messageWithButtons, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const stack = useStack({ env: () => ({ TANDEM_RUN_TIMEOUT_S: '5' }) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the run time limit', () => {
  it('counts from the approval: a plan approved after longer than the limit runs', async () => {
    const channel = 'CRC1';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'wait a moment',
      plan('Wait a moment', [step('s1', 'Wait no time', 'wait', { seconds: 0 })]),
    );
    // The plan waits for its approval longer than the whole run may take (5 s).
    await sleep(6_000);
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const summary = await waitFor(stack.slack, () => botMessages(stack.slack, channel, thread).find(isSummary), 'the summary', 30_000);
    expect(visibleText(summary)).not.toMatch(/took longer than/);
    expect(summary.text).toMatch(/Succeeded/);
    expect(stack.boardText(channel, thread, planMessage.ts)).toMatch(/1\/1 steps done/);
  });

  /** A plan whose comment fails once (the issue's first comment answers 404), with `more` after it; approved, and escalated. */
  async function escalatedComment(channel: string, more: ReturnType<typeof step>[] = []) {
    const issue = stack.github.addIssue('acme/api', { title: 'clock' });
    stack.github.fault({ method: 'POST', path: new RegExp(`/issues/${issue.number}/comments$`), status: 404, body: { message: 'Not Found' }, times: 1 });
    const planned = await stack.planned(
      channel,
      'U1',
      'comment on the issue',
      plan('Comment on the issue', [step('s1', 'Comment on it', 'github_comment', { repo: 'acme/api', number: issue.number, body: 'hello' }), ...more]),
    );
    await clickByText(stack.tandem.driver, planned.planMessage, 'Approve', 'U2');
    const escalation = await waitFor(stack.slack, () => messageWithButtons(stack.slack, channel, planned.thread, 'Retry', 'Abort'), 'the escalation', 20_000);
    return { ...planned, escalation };
  }

  it('does not count a wait for a person: an escalation answered after longer than the limit goes on and succeeds', async () => {
    const channel = 'CRC2';
    const { thread, planMessage, escalation } = await escalatedComment(channel);
    // The escalation waits for its answer longer than the whole run may take (5 s).
    await sleep(7_000);
    await clickByText(stack.tandem.driver, escalation, 'Retry', 'U2');
    const summary = await waitFor(stack.slack, () => botMessages(stack.slack, channel, thread).find(isSummary), 'the summary', 30_000);
    expect(visibleText(summary)).not.toMatch(/took longer than/);
    expect(summary.text).toMatch(/Succeeded/);
    expect(stack.boardText(channel, thread, planMessage.ts)).toMatch(/1\/1 steps done/);
  });

  it("still counts the run's own steps: after a wait for a person, a step that runs past the limit stops the run", async () => {
    const channel = 'CRC3';
    const { thread, escalation } = await escalatedComment(channel, [step('s2', 'Wait long', 'wait', { seconds: 8 }, ['s1'])]);
    await sleep(7_000);
    await clickByText(stack.tandem.driver, escalation, 'Retry', 'U2');
    const summary = await waitFor(stack.slack, () => botMessages(stack.slack, channel, thread).find(isSummary), 'the summary', 30_000);
    expect(visibleText(summary)).toMatch(/took longer than 5s/);
  });
});
