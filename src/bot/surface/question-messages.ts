/** Marking a question message answered, whether the answer came through the Answer modal or a mention. */
import type { SlackClient } from './slack-client.ts';
import { asSlackBlocks } from '../views/limits.ts';
import { decodeAnswerButton, QUESTION_ANSWER_ACTION, questionMessage } from '../views/run/question.ts';

export async function showAnswered(
  client: SlackClient,
  where: { channel: string; ts: string; runId: string; asked: string; question: string; threadTs?: string; shown?: ThreadMessage['blocks'] },
  answered: { by: string; answer: string },
): Promise<void> {
  const view = questionMessage({ runId: where.runId, asked: where.asked, questions: where.question.split('\n') }, answered);
  // The question as its message showed it, when that can be read: the button's copy may be cut to fit Slack's limit.
  const shown = (where.shown ?? (where.threadTs ? await shownBlocks(client, { ...where, threadTs: where.threadTs }) : undefined))?.find(
    (block) => block.type === 'section',
  );
  const blocks = shown ? [shown, ...view.blocks.slice(1)] : view.blocks;
  await client.chat.update({ channel: where.channel, ts: where.ts, text: view.text, blocks: asSlackBlocks(blocks) });
}

/** The question message's blocks as Slack holds them; undefined when they cannot be read (the question is drawn from the button then). */
async function shownBlocks(client: SlackClient, at: { channel: string; ts: string; threadTs: string }): Promise<ThreadMessage['blocks']> {
  const replies = await client.conversations
    .replies({ channel: at.channel, ts: at.threadTs, oldest: at.ts, latest: at.ts, inclusive: true, limit: 2 })
    .catch(() => undefined);
  return (replies?.messages as ThreadMessage[] | undefined)?.find((message) => message.ts === at.ts)?.blocks;
}

interface ThreadMessage {
  ts?: string;
  blocks?: { type?: string; block_id?: string; elements?: { action_id?: string; value?: string }[] }[];
}

/**
 * A question answered by mentioning the bot in the thread: its open question message (the newest one
 * still carrying an Answer button) is marked answered too. Best effort: the answer counts either way.
 */
export async function markAnsweredInThread(client: SlackClient, input: { channel: string; threadTs: string; by: string; answer: string }): Promise<void> {
  const replies = await client.conversations.replies({ channel: input.channel, ts: input.threadTs, limit: 200 });
  const messages = (replies.messages ?? []) as ThreadMessage[];
  for (const message of [...messages].reverse()) {
    const button = message.blocks
      ?.flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []))
      .find((element) => element.action_id === QUESTION_ANSWER_ACTION);
    const decoded = button && decodeAnswerButton(button.value);
    if (!decoded?.asked || !message.ts) continue;
    const where = { channel: input.channel, ts: message.ts, runId: decoded.runId, asked: decoded.asked, question: decoded.question, shown: message.blocks };
    await showAnswered(client, where, { by: input.by, answer: input.answer });
    return;
  }
}
