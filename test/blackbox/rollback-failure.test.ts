/**
 * An undo step is a write too: when it fails during an Abort, the bot posts an escalation naming it that mentions
 * TANDEM_ESCALATE_TO (contract §5: a failed write or destructive step is escalated), with nothing to choose.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, buttonTexts, clickByText, isSummary, messageWithButtons, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { ESCALATE, useStack } from './stack.ts';

const stack = useStack();

describe('a rollback step that fails', () => {
  it('is escalated by name, mentioning the on-call group', async () => {
    const { slack } = stack;
    const channel = 'C85';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'open then comment',
      plan(
        'Open an issue, then comment elsewhere',
        [
          step('s1', 'Open issue one', 'github_create_issue', { repo: 'acme/api', title: 'one' }),
          step('s2', 'Comment on 9991', 'github_comment', { repo: 'acme/api', number: 9991, body: 'b' }, ['s1']),
        ],
        { rollback: [{ id: 'r1', title: 'Comment on 9999 to undo one', tool: 'github_comment', args: { repo: 'acme/api', number: 9999, body: 'undo' } }] },
      ),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const failed = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Retry', 'Abort'), 'the escalation', 30_000);
    await clickByText(stack.tandem.driver, failed, 'Abort', 'U2');
    await waitFor(slack, () => botMessages(slack, channel, thread).find(isSummary), 'the summary', 30_000);
    const undo = await waitFor(
      slack,
      () => botMessages(slack, channel, thread).find((m) => visibleText(m).includes('An undo step failed')),
      'the undo escalation',
      10_000,
    );
    expect(visibleText(undo)).toContain(`<!subteam^${ESCALATE}>`);
    expect(visibleText(undo)).toContain('“Comment on 9999 to undo one” failed');
    expect(buttonTexts(undo).filter((label) => label !== 'Reassign')).toEqual([]);
  });
});
