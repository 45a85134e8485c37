/** Marking a question message answered, whether the answer came through the Answer modal or a mention. */
import type { SlackClient } from './slack-client.ts';
import { buttonsOf, readThread, type ThreadMessage } from './thread-messages.ts';
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

/** What the store holds of a run's questions: whether each is answered, by whom, with what (redacted as stored). */
export type StoredQuestions = (runId: string) => Promise<readonly { id: string; answer: string | null; answeredBy: string | null }[]>;

/**
 * A question answered: every copy of it in the thread still carrying an Answer button (its reminder posts it again)
 * is marked answered, not only the one clicked. By the Answer modal, `question` names it (`except`: its message,
 * already marked). By a mention, which names none, the store says which: with two questions open the agent answers
 * the one handed to the speaker or the oldest, so every copy whose stored question now has an answer is marked with
 * that answer; a copy whose button names no question (posted before buttons named them) falls back to the newest
 * open one. Best effort: the answer counts either way.
 */
export async function markAnsweredInThread(
  client: SlackClient,
  input: {
    channel: string;
    threadTs: string;
    by: string;
    answer: string;
    question?: { runId: string; question: string };
    except?: string;
    stored?: StoredQuestions;
  },
): Promise<void> {
  const open = (await readThread(client, input)).flatMap((message) => {
    const button = buttonsOf(message).find((element) => element.action_id === QUESTION_ANSWER_ACTION);
    const decoded = button && decodeAnswerButton(button.value);
    return decoded?.asked && message.ts ? [{ message, ts: message.ts, ...decoded, asked: decoded.asked }] : [];
  });
  const answers = !input.question && input.stored ? await storedAnswers(open, input.stored) : undefined;
  const which = input.question ?? open.filter((copy) => !copy.questionId).at(-1);
  for (const copy of open) {
    if (copy.ts === input.except) continue;
    const stored = answers && copy.questionId ? answers.get(copy.questionId) : undefined;
    const matches = which !== undefined && copy.runId === which.runId && copy.question === which.question;
    if (!stored && !(matches && (!answers || !copy.questionId))) continue;
    const where = { channel: input.channel, ts: copy.ts, runId: copy.runId, asked: copy.asked, question: copy.question, shown: copy.message.blocks };
    await showAnswered(client, where, stored ?? { by: input.by, answer: input.answer });
  }
}

/** The answered questions among the open copies' runs, by question id. */
async function storedAnswers(open: readonly { runId: string }[], stored: StoredQuestions): Promise<Map<string, { by: string; answer: string }>> {
  const answered = new Map<string, { by: string; answer: string }>();
  for (const runId of new Set(open.map((copy) => copy.runId))) {
    for (const question of await stored(runId)) {
      if (question.answer !== null) answered.set(question.id, { by: question.answeredBy ?? '', answer: question.answer });
    }
  }
  return answered;
}
