/** Board views: a step waiting for a person links to its message, in both board styles; other steps do not. */
import { describe, expect, it } from 'vitest';
import type { BoardState } from '../../src/agent/ports/surface.ts';
import { MessageBlocksSchema } from '../../src/bot/views/limits.ts';
import { planBoard } from '../../src/bot/views/run/plan-board.ts';
import { statusBoard } from '../../src/bot/views/run/status-board.ts';
import { makeBoard, makePlan } from '../fakes/slack-fixtures.ts';

const LINK = 'https://slack.test/archives/C1/p1700000000000200';

function pausedBoard(): BoardState {
  const board = makeBoard(makePlan(3), { runStatus: 'paused' });
  board.steps[1] = { ...board.steps[1]!, status: 'failed', waitingFor: 'decision' };
  return board;
}

describe('a waiting step on the board', () => {
  it('links to the message it waits on, in the sections board and in the plan block', () => {
    const waitLinks = new Map([
      ['s2', LINK],
      ['s3', 'https://slack.test/archives/C1/p1'], // s3 waits for nothing: never linked
    ]);
    const sections = statusBoard(pausedBoard(), { waitLinks });
    expect(MessageBlocksSchema.safeParse(sections.blocks).success).toBe(true);
    const text = JSON.stringify(sections.blocks);
    expect(text).toContain(`<${LINK}|the message waiting for you>`);
    expect(text).not.toContain('archives/C1/p1|');

    const plan = planBoard(pausedBoard(), { waitLinks })!;
    const cards = (plan.blocks[0] as { tasks: { task_id: string; sources?: { url: string; text: string }[] }[] }).tasks;
    expect(cards.find((card) => card.task_id === 's2')?.sources?.[0]).toEqual({ type: 'url', url: LINK, text: 'the message waiting for you' });
    expect(cards.find((card) => card.task_id === 's3')?.sources).toBeUndefined();
  });

  it('has no link once nothing waits, or when the link is not known', () => {
    const answered = makeBoard(makePlan(3));
    expect(JSON.stringify(statusBoard(answered, { waitLinks: new Map([['s2', LINK]]) }).blocks)).not.toContain(LINK);
    expect(JSON.stringify(statusBoard(pausedBoard()).blocks)).toContain('the question is in this thread');
  });
});
