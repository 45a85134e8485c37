/**
 * The status board is Slack's native `plan` block with one `task_card` per step where Slack accepts it;
 * where Slack answers `invalid_blocks` for it, the board falls back to sections, the run goes on, and the
 * people in the thread see no error.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, clickByText, visibleText, waitFor, isSummary } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const stack = useStack();
const { slack } = stack;

/** Every node of `type` anywhere in a message's blocks. */
function nodesOf(message: { blocks?: unknown[] }, type: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    if ((node as { type?: unknown }).type === type) found.push(node as Record<string, unknown>);
    Object.values(node).forEach(visit);
  };
  visit(message.blocks ?? []);
  return found;
}

/** A two-step run: file an issue on acme/api, then tell `<channel>-out`; resolves when its summary is posted. */
async function finishedRun(channel: string) {
  const { thread, planMessage } = await stack.planned(
    channel,
    'U1',
    'file and tell',
    plan('File an issue and tell', [
      step('s1', 'File the issue', 'github_create_issue', { repo: 'acme/api', title: `From ${channel}` }),
      step('s2', 'Tell about it', 'slack_notify', { channel: `${channel}-out`, text: 'filed {{steps.s1.output.url}}' }, ['s1']),
    ]),
  );
  await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
  const summary = await waitFor(
    slack,
    () => botMessages(slack, channel, thread).find((m) => m.ts > planMessage.ts && isSummary(m) && m !== stack.board(channel, thread, planMessage.ts)),
    'the summary',
    20_000,
  );
  return { thread, planMessage, summary, board: stack.board(channel, thread, planMessage.ts)! };
}

describe('the status board', () => {
  it('is a plan block with one task card per step, complete at the end, the issue linked as a source', async () => {
    const { board } = await finishedRun('CF1');
    expect(nodesOf(board, 'plan')).toHaveLength(1);
    const cards = nodesOf(board, 'task_card');
    expect(cards).toHaveLength(2);
    expect(cards.map((c) => c.status)).toEqual(['complete', 'complete']);
    expect(JSON.stringify(cards.map((c) => c.title))).toContain('File the issue');
    expect(JSON.stringify(cards[0]!.sources ?? [])).toMatch(/issues\/\d+/);
    const updates = slack.callsOf('chat.update').filter((c) => c.params.ts === board.ts && c.status === 200);
    for (let i = 1; i < updates.length; i += 1) expect(updates[i]!.at - updates[i - 1]!.at).toBeGreaterThanOrEqual(950);
  });

  it("a failed step's card is marked error", async () => {
    const { thread, planMessage } = await stack.planned(
      'CF2',
      'U1',
      'check broken',
      plan('Check the broken site', [step('s1', 'Check broken', 'http_check', { url: `${stack.targetUrl}/down`, expectStatus: 200 })]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(
      slack,
      () => nodesOf(stack.board('CF2', thread, planMessage.ts) ?? {}, 'task_card').some((c) => c.status === 'error'),
      'an error card',
      20_000,
    );
  });

  it('where Slack refuses plan blocks, falls back to sections, the run goes on and the thread shows no error', async () => {
    slack.model.refusedBlockTypes.add('plan');
    const refusedBefore = slack.calls.filter((c) => c.response?.ok === false).length;
    const { thread, planMessage, board } = await finishedRun('CF3');
    expect(slack.calls.filter((c) => c.response?.ok === false).length).toBeGreaterThan(refusedBefore); // Slack did refuse one
    expect(nodesOf(board, 'plan')).toEqual([]);
    const shown = visibleText(board);
    expect(shown).toContain('File the issue');
    expect(shown).toContain('Tell about it');
    expect(shown).toMatch(/issues\/\d+/);
    expect(stack.texts('CF3-out')).toEqual([expect.stringMatching(/^filed https?:\/\/\S+\/issues\/\d+/)]);
    const thread_ = botMessages(slack, 'CF3', thread)
      .filter((m) => m.ts > planMessage.ts)
      .map(visibleText)
      .join('\n');
    expect(thread_).not.toMatch(/invalid_blocks|invalid blocks|unsupported type/i);
    expect(
      slack.model.ephemerals
        .filter((e) => e.channel === 'CF3')
        .map(visibleText)
        .join('\n'),
    ).not.toMatch(/invalid_blocks|error/i);
  });
});
