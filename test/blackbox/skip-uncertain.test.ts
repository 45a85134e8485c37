/**
 * Contract §5: Skip is offered for an uncertain step, and the summary says what is uncertain and what changed. A
 * person who skips a merge whose answer was lost goes on without knowing whether it happened: the merge may
 * have happened all the same, so the summary, the board and an Abort's summary keep saying so, never "nothing".
 */
import { describe, expect, it } from 'vitest';
import { botMessages, clickByText, hasButtons, isSummary, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const stack = useStack();

describe('Skip on an uncertain step', () => {
  /** A merge whose answer is lost after it took effect, and whose check on GitHub fails too: it is uncertain. */
  function lostMerge(): number {
    const pull = stack.github.addPull('acme/api', { title: 'Add feature', head: `feature-${Math.random().toString(36).slice(2)}` });
    stack.github.fault({ method: 'PUT', path: new RegExp(`/pulls/${pull.number}/merge$`), drop: true, afterEffect: true });
    stack.github.fault({ method: 'GET', path: new RegExp(`/pulls/${pull.number}$`), status: 500, times: 50 });
    return pull.number;
  }

  /** The escalation about the step titled `title`, with its buttons. */
  function escalationOf(channel: string, thread: string, title: string) {
    return botMessages(stack.slack, channel, thread).find((m) => hasButtons(m, 'Retry', 'Skip', 'Abort') && visibleText(m).includes(title));
  }

  it('the summary and the board say the skipped merge may have happened, not that nothing changed', async () => {
    const { slack } = stack;
    const channel = 'C61';
    const number = lostMerge();
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'merge it',
      plan('Merge the feature', [step('s1', 'Merge the feature pull', 'github_merge_pull', { repo: 'acme/api', number })]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => escalationOf(channel, thread, 'Merge the feature pull'), 'the escalation', 30_000);
    await clickByText(stack.tandem.driver, escalation, 'Skip', 'U2');
    const summary = visibleText(await waitFor(slack, () => botMessages(slack, channel, thread).find(isSummary), 'the summary', 30_000));

    expect(summary).not.toContain('What changed:* nothing');
    expect(summary).toMatch(/Uncertain:\*\n.*Merge the feature pull — .*may or may not have taken effect/);
    expect(summary).not.toMatch(/Not done:\*\n.*Merge the feature pull — skipped/);
    const board = stack.boardText(channel, thread, planMessage.ts);
    expect(board).toMatch(/Merge the feature pull[^\n]*skipped[^\n]*may or may not have taken effect/);
  });

  it('an Abort after the Skip still names the merge as uncertain', async () => {
    const { slack } = stack;
    const channel = 'C62';
    const number = lostMerge();
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'merge and check',
      plan('Merge the feature, and check the site', [
        step('s1', 'Merge the feature pull', 'github_merge_pull', { repo: 'acme/api', number }),
        step('s2', 'Check the site', 'http_check', { url: `${stack.targetUrl}/down`, expectStatus: 200 }),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const merge = await waitFor(slack, () => escalationOf(channel, thread, 'Merge the feature pull'), 'the merge escalation', 30_000);
    const check = await waitFor(slack, () => escalationOf(channel, thread, 'Check the site'), 'the check escalation', 30_000);
    await clickByText(stack.tandem.driver, merge, 'Skip', 'U2');
    await waitFor(slack, () => /Skipped by/.test(visibleText(botMessages(slack, channel, thread).find((m) => m.ts === merge.ts)!)), 'the Skip taken', 30_000);
    await clickByText(stack.tandem.driver, check, 'Abort', 'U2');
    const summary = visibleText(await waitFor(slack, () => botMessages(slack, channel, thread).find(isSummary), 'the summary', 30_000));

    expect(summary).toMatch(/Aborted:\*.*\n.*uncertain: Merge the feature pull/i);
    expect(summary).not.toContain('What changed:* nothing');
  });
});
