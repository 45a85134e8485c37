/**
 * Places where the product disagrees with CONTRACT.md. Each test is written as the contract says and
 * skipped until the product is fixed; the comment says what the product does instead. Un-skip when fixed.
 */
import { describe, expect, it } from 'vitest';
import { clickByText, messageWithButtons, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const stack = useStack();

describe('known gaps', () => {
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
    await waitFor(slack, () => stack.texts(`${channel}-notes`).includes('noted') && /^succeeded/i.test(stack.boardText(channel, thread, planMessage.ts)), 'the run to end', 20_000);
    return stack.boardText(channel, thread, planMessage.ts).split('\n');
  }

  /*
   * CONTRACT §5: the board has "one line per step: waiting, running, done, failed, skipped"; the escalation's
   * Skip button says "Skip it and go on".
   * Sent: skippedRun() above; clicked Skip on the escalation.
   * Observed final board (chat.update): text "Succeeded: Check a broken site, and note it (2/2 steps done)", line
   * ":white_check_mark: 1. Check broken · done · 0s · <…/down|link> · _skipped by a person: evaluation failed:
   * …/down answered 500, expected 200_" — the skipped step is shown and counted as done (2/2), and the run
   * "Succeeded". Stricter form: the line should say "skipped" (not "done") and the count be 1/2.
   * Cause: src/agent/escalation-resolution.ts settleStep(): Skip on a step that has an output sets it to
   * `succeeded` ("accept the result it has"); only a step without output becomes `skipped`. Deliberate, but the
   * board then tells a person a check that failed was done.
   */
  it.skip('a step skipped from an escalation shows as skipped on the board, not done', async () => {
    const lines = await skippedRun('C41');
    const skipped = lines.find((l) => l.includes('Check broken'))!;
    const done = lines.find((l) => l.includes('Note it'))!;
    expect(skipped.split(' ')[0]).not.toBe(done.split(' ')[0]);
    expect(skipped).not.toMatch(/· done ·/);
    expect(lines[0]).not.toContain('2/2 steps done');
  });
});
