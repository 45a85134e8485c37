/** Marking a question message answered, whether the answer came through the Answer modal or a mention. */
import type { SlackClient } from './slack-client.ts';
import { asSlackBlocks } from '../views/limits.ts';
import { decodeAnswerButton, QUESTION_ANSWER_ACTION, questionMessage } from '../views/run/question.ts';

export async function showAnswered(
  client: SlackClient,
  where: { channel: string; ts: string; runId: string; asked: string; question: string },
  answered: { by: string; answer: string },
): Promise<void> {
  const view = questionMessage({ runId: where.runId, asked: where.asked, questions: where.question.split('\n') }, answered);
  await client.chat.update({ channel: where.channel, ts: where.ts, text: view.text, blocks: asSlackBlocks(view.blocks) });
}

interface ThreadMessage {
  ts?: string;
  blocks?: { type?: string; elements?: { action_id?: string; value?: string }[] }[];
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
    const where = { channel: input.channel, ts: message.ts, runId: decoded.runId, asked: decoded.asked, question: decoded.question };
    await showAnswered(client, where, { by: input.by, answer: input.answer });
    return;
  }
}
