/**
 * Contract §2: TANDEM_RUN_TIMEOUT_S is a budget for running the plan, and a plan may be approved any time
 * within TANDEM_APPROVAL_TTL_S. A plan approved after longer than the run limit runs: its clock starts at
 * the approval, not at the mention.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, clickByText, isSummary, visibleText, waitFor } from './harness.ts';
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
});
