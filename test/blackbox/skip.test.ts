/**
 * The board has "one line per step: waiting, running, done, failed, skipped". A failed check
 * that a person skips from the escalation goes on (its dependants run) but is shown as skipped, not done.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, clickByText, isSummary, messageWithButtons, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const stack = useStack();

describe('Skip on an escalation', () => {
  /** A run whose s1 (http_check of a 500) fails, is escalated and Skipped, and whose s2 then succeeds. */
  async function skippedRun(channel: string): Promise<string[]> {
    const { slack } = stack;
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'check broken then note',
      plan('Check a broken site, and note it', [
        step('s1', 'Check broken', 'http_check', { url: `${stack.targetUrl}/down`, expectStatus: 200 }),
        step('s2', 'Note it', 'slack_notify', { channel: `${channel}-notes`, text: 'noted' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
    await clickByText(stack.tandem.driver, escalation, 'Skip', 'U2');
    await waitFor(
      slack,
      () => stack.texts(`${channel}-notes`).includes('noted') && /^finished with 1 skipped/i.test(stack.boardText(channel, thread, planMessage.ts)),
      'the run to end',
      20_000,
    );
    return stack.boardText(channel, thread, planMessage.ts).split('\n');
  }

  it('a step skipped from an escalation shows as skipped on the board, not done', async () => {
    const lines = await skippedRun('C41');
    const skipped = lines.find((l) => l.includes('Check broken'))!;
    const done = lines.find((l) => l.includes('Note it'))!;
    expect(skipped.split(' ')[0]).not.toBe(done.split(' ')[0]);
    expect(skipped).not.toMatch(/· done ·/);
    expect(lines[0]).not.toContain('2/2 steps done');
    // The board's title says the true outcome: not "Succeeded" with a step skipped.
    expect(lines[0]).toMatch(/^Finished with 1 skipped/);
  });

  it('Skip of a failed step with no result says it also skips what needs it, and does so', async () => {
    const { slack } = stack;
    const channel = 'C42';
    const issue = stack.github.addIssue('acme/api', { title: 'exists' });
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'comment then follow',
      plan('Comment then follow', [
        step('s1', 'Comment on 9991', 'github_comment', { repo: 'acme/api', number: 9991, body: 'a' }),
        step('s3', 'Comment after s1', 'github_comment', { repo: 'acme/api', number: issue.number, body: 'after s1' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Retry', 'Skip'), 'the escalation', 30_000);
    expect(visibleText(escalation)).toContain('*Skip* goes on without it and also skips “Comment after s1”, which needs it');
    await clickByText(stack.tandem.driver, escalation, 'Skip', 'U2');
    await waitFor(slack, () => botMessages(slack, channel, thread).find(isSummary), 'the summary', 30_000);
    // What the offer said: the step that needs it was skipped, not run.
    expect(stack.github.requests.filter((r) => r.method === 'POST' && r.path.includes(`/issues/${issue.number}/comments`))).toEqual([]);
  });
});
