/**
 * Issue 29 through the real process and the Slack fake: the thread says a run's true outcome and the
 * results a person asked for, and the board carries **Cancel run** (which the policy decides who may use).
 */
import { describe, expect, it } from 'vitest';
import { botMessages, buttonTexts, clickByText, messageWithButtons, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const stack = useStack();

/** The run's summary: the bot's message in the thread with feedback buttons or an outcome emoji at its start. */
const summaryIn = (channel: string, thread: string) =>
  botMessages(stack.slack, channel, thread).find((m) => /^:(white_check_mark|warning|x|octagonal_sign|no_entry_sign|no_good): /.test(m.text));

describe('true outcomes and results first, end to end', () => {
  it('a failed health check a person skips: board and summary say "Finished with 1 skipped", never "Done", and show what the check found', async () => {
    const channel = 'C290';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'check the missing page',
      plan('Check the missing page', [
        step('s1', 'Check that /missing answers with HTTP 200', 'http_check', { url: `${stack.targetUrl}/missing`, expectStatus: 200 }),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(stack.slack, () => messageWithButtons(stack.slack, channel, thread, 'Retry', 'Skip'), 'the escalation', 20_000);
    await clickByText(stack.tandem.driver, escalation, 'Skip', 'U2');
    const summary = await waitFor(stack.slack, () => summaryIn(channel, thread), 'the summary', 20_000);
    const said = visibleText(summary);
    expect(summary.text).toMatch(/^:warning: Finished with 1 skipped/);
    expect(said).not.toMatch(/Done|Succeeded/);
    expect(said).toContain('answered 500 Internal Server Error');
    expect(said).not.toMatch(/tokens|\$0\.|run_/); // no cost or ids in the thread
    expect(buttonTexts(summary)).not.toContain('Save as runbook');
    const board = await waitFor(
      stack.slack,
      () => /^Finished with 1 skipped/.test(stack.boardText(channel, thread, planMessage.ts)) && stack.board(channel, thread, planMessage.ts),
      'the final board',
    );
    expect(visibleText(board)).not.toContain('Succeeded');
    expect(buttonTexts(board)).not.toContain('Cancel run'); // an ended run has nothing to cancel
  });

  it('a read that succeeds leads its summary with the answer ("200 OK"), not "What changed: nothing" alone', async () => {
    const channel = 'C291';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'is the site up',
      plan('Check the site', [step('s1', 'Check that /ok answers with HTTP 200', 'http_check', { url: `${stack.targetUrl}/ok`, expectStatus: 200 })]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const summary = await waitFor(stack.slack, () => summaryIn(channel, thread), 'the summary', 20_000);
    expect(summary.text).toMatch(/^:white_check_mark: Succeeded: Check the site/);
    const [, answer] = (summary.blocks ?? []) as { text?: { text?: string } }[];
    expect(answer?.text?.text).toMatch(/answered 200 OK in \d+ ms/);
    expect(buttonTexts(summary)).toContain('Save as runbook');
  });

  it('Cancel run on the board: a stranger is told who may and nothing stops; the requester cancels, and the board and summary say so', async () => {
    const channel = 'C292';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'check then wait a long time',
      plan('Check the site, then wait', [
        step('s1', 'Check that /ok answers with HTTP 200', 'http_check', { url: `${stack.targetUrl}/ok`, expectStatus: 200 }),
        step('s2', 'Wait for things to settle', 'wait', { seconds: 600 }, ['s1']),
      ]),
    );
    // No board before approval: only the plan message is in the thread.
    expect(stack.board(channel, thread, planMessage.ts)).toBeUndefined();
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const board = await waitFor(
      stack.slack,
      () => {
        const found = stack.board(channel, thread, planMessage.ts);
        return found && /running/.test(visibleText(found)) && buttonTexts(found).includes('Cancel run') && found;
      },
      'the board with Cancel run while the wait runs',
      20_000,
    );
    const before = stack.slack.model.ephemeralsFor('U9').length;
    await clickByText(stack.tandem.driver, board, 'Cancel run', 'U9');
    await waitFor(stack.slack, () => stack.slack.model.ephemeralsFor('U9').length > before, 'the refusal to U9');
    expect(stack.slack.model.ephemeralsFor('U9').at(-1)!.text).toMatch(/<@U1>|approver/);
    expect(summaryIn(channel, thread)).toBeUndefined();

    await clickByText(stack.tandem.driver, board, 'Cancel run', 'U1');
    const summary = await waitFor(stack.slack, () => summaryIn(channel, thread), 'the summary of the cancelled run', 20_000);
    expect(summary.text).toMatch(/^:no_entry_sign: Cancelled/);
    expect(visibleText(summary)).toContain('Cancelled by <@U1>');
    expect(visibleText(summary)).toMatch(/answered 200 OK/); // what the run found before it was cancelled
    expect(buttonTexts(summary)).not.toContain('Save as runbook');
    await waitFor(stack.slack, () => /^Cancelled/.test(stack.boardText(channel, thread, planMessage.ts)), 'the board ended as cancelled');
    expect(buttonTexts(stack.board(channel, thread, planMessage.ts)!)).not.toContain('Cancel run');
  });
});
