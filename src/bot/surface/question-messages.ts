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
 * A question answered: every copy of it in the thread still carrying an Answer button (its reminder posts it again)
 * is marked answered, not only the one clicked. By a mention, the question is the newest one still open; by the
 * Answer modal, the one clicked (`except`: its message, already marked). Best effort: the answer counts either way.
 */
export async function markAnsweredInThread(
  client: SlackClient,
  input: { channel: string; threadTs: string; by: string; answer: string; question?: { runId: string; question: string }; except?: string },
): Promise<void> {
  const replies = await client.conversations.replies({ channel: input.channel, ts: input.threadTs, limit: 200 });
  const open = ((replies.messages ?? []) as ThreadMessage[]).flatMap((message) => {
    const button = message.blocks
      ?.flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []))
      .find((element) => element.action_id === QUESTION_ANSWER_ACTION);
    const decoded = button && decodeAnswerButton(button.value);
    return decoded?.asked && message.ts ? [{ message, ts: message.ts, ...decoded, asked: decoded.asked }] : [];
  });
  const which = input.question ?? open.at(-1);
  if (!which) return;
  for (const copy of open) {
    if (copy.runId !== which.runId || copy.question !== which.question || copy.ts === input.except) continue;
    const where = { channel: input.channel, ts: copy.ts, runId: copy.runId, asked: copy.asked, question: copy.question, shown: copy.message.blocks };
    await showAnswered(client, where, { by: input.by, answer: input.answer });
  }
}
