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
  /*
   * CONTRACT §5: "Abort stops the run and runs the rollback steps for what succeeded, in reverse order".
   * Sent: a plan whose forward steps s1, s2 (slack_notify to C91) succeed and s3 (http_check of a 500) fails,
   * with `rollback: [r1 "undo one", r2 "undo two"]` in the §3 shape ({ id, title, tool, args } — §3 has no
   * field linking a rollback step to a forward step). Clicked Abort on the escalation.
   * Observed in C91: "step one done", "step two done", "undo one", "undo two" — list order, not reversed.
   * Cause: src/agent/rollback.ts rollbackOrder() orders only rollback steps carrying an `undoes` field
   * (not in the contract) by their forward step's finish time; every step without it gets `order: -1`
   * ("general clean-up") and, with a stable sort, keeps the plan's list order.
   */
  it.skip('Abort runs the rollback steps in reverse order', async () => {
    const { slack } = stack;
    const { thread, planMessage } = await stack.planned(
      'C40',
      'U1',
      'announce and check',
      plan(
        'Announce, then check the broken site',
        [
          step('s1', 'Say one', 'slack_notify', { channel: 'C91', text: 'step one done' }),
          step('s2', 'Say two', 'slack_notify', { channel: 'C91', text: 'step two done' }, ['s1']),
          step('s3', 'Check the broken site', 'http_check', { url: `${stack.targetUrl}/broken`, expectStatus: 200 }, ['s2']),
        ],
        {
          rollback: [
            { id: 'r1', title: 'Undo one', tool: 'slack_notify', args: { channel: 'C91', text: 'undo one' } },
            { id: 'r2', title: 'Undo two', tool: 'slack_notify', args: { channel: 'C91', text: 'undo two' } },
          ],
        },
      ),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, 'C40', thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
    await clickByText(stack.tandem.driver, escalation, 'Abort', 'U2');
    await waitFor(slack, () => stack.texts('C91').length >= 4, 'the rollback', 20_000);
    expect(stack.texts('C91')).toEqual(['step one done', 'step two done', 'undo two', 'undo one']);
  });

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
   * ":white_check_mark: 1. Check broken · 0s · <…/down|link> · _skipped by a person: evaluation failed: …/down
   * answered 500, expected 200_" — the skipped step carries the done mark and is counted as done (2/2).
   * Cause: src/agent/escalation-resolution.ts settleStep(): Skip on a step that has an output sets it to
   * `succeeded` ("accept the result it has"); only a step without output becomes `skipped`. Deliberate, but the
   * board then tells a person a check that failed was done.
   */
  it.skip('a step skipped from an escalation shows as skipped on the board, not done', async () => {
    const lines = await skippedRun('C41');
    const skipped = lines.find((l) => l.includes('Check broken'))!;
    const done = lines.find((l) => l.includes('Note it'))!;
    expect(skipped.split(' ')[0]).not.toBe(done.split(' ')[0]);
    expect(lines[0]).not.toContain('2/2 steps done');
  });

  /*
   * CONTRACT §5: the board shows "one line per step: waiting, running, done, failed, skipped".
   * Observed lines: ":white_check_mark: 2. Note it · 0s · <…|link>"; while running ":arrows_counterclockwise: 1. …",
   * waiting ":white_circle: 2. …" — the state is only an emoji shortcode, never the word.
   * Cause: src/bot/views/status-board.ts stepLine() renders STEP_EMOJI[status] and no label. Arguable (emoji are
   * what a person sees), listed for the lead to decide.
   */
  it.skip('each board line names its step state in words', async () => {
    const lines = await skippedRun('C42');
    expect(lines.find((l) => l.includes('Note it'))).toMatch(/\bdone\b/i);
  });
});
