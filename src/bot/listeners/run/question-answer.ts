import type { App } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { redactText } from '../../../agent/text/redact.ts';
import { markAnsweredInThread, showAnswered } from '../../surface/question-messages.ts';
import { registerModalButton } from '../modal-button.ts';
import { refusedFollowUp } from '../messages/mention.ts';
import { describeError, tellPrivately, TRY_AGAIN } from '../../surface/replies.ts';
import {
  ANSWER_BLOCK,
  ANSWER_INPUT,
  answerModal,
  decodeAnswerButton,
  decodeQuestionRef,
  QUESTION_ANSWER_ACTION,
  QUESTION_CALLBACK,
} from '../../views/run/question.ts';

/**
 * **Answer** on a question opens a modal (a trigger id lives 3 s, so nothing is looked up first); the
 * answer goes to the agent as a follow-up in the run's thread, naming the question the form was opened on
 * (the button carries its id), and the agent asks the approval policy who may answer. An answered question's message then says who answered and what.
 */
export function registerQuestionAnswer(app: App, deps: BotDeps): void {
  registerModalButton(app, deps, {
    actionId: QUESTION_ANSWER_ACTION,
    decode: decodeAnswerButton,
    unrecognised: 'That button is not from a question I recognise; nothing was done.',
    modal: (button, message) =>
      answerModal({ r: button.runId, c: message.channel, t: message.ts, q: button.question, ...(button.questionId ? { i: button.questionId } : {}) }),
    name: 'Answer',
    notOpened: (why) => `I could not open the answer form (${why}). Click Answer again, or mention me in this thread with your answer.`,
  });

  app.view(QUESTION_CALLBACK, async ({ ack, body, view, client }) => {
    const ref = decodeQuestionRef(view.private_metadata);
    const answer = view.state.values[ANSWER_BLOCK]?.[ANSWER_INPUT]?.value?.trim() ?? '';
    if (!ref) {
      await ack();
      return;
    }
    if (!answer) {
      await ack({ response_action: 'errors', errors: { [ANSWER_BLOCK]: 'Write your answer.' } });
      return;
    }
    await ack();
    const userId = body.user.id;
    const run = await deps.runs.getRun(ref.r).catch(() => undefined);
    if (!run) {
      deps.logger.warn({ runId: ref.r, userId }, 'an answer for a run that is not there');
      return;
    }
    const thread = { channel: run.conversation.channel, user: userId, threadTs: run.conversation.threadTs };
    try {
      // The form answers the question it was opened on, not whichever is oldest (several may be open at once).
      const outcome = await deps.agent.followUp({ conversation: run.conversation, userId, text: answer, asAnswer: true, questionId: ref.i });
      if (typeof outcome === 'object') {
        await tellPrivately(client, deps.logger, { ...thread, text: refusedFollowUp(outcome.refused) });
        return;
      }
      if (outcome !== 'answered' && outcome !== 'already-answered') {
        const text = ref.i
          ? 'This question is no longer waiting for an answer (it was answered, or the run moved on); your answer changed nothing.'
          : 'Nothing in this run is waiting for an answer any more; your answer changed nothing.';
        await tellPrivately(client, deps.logger, { ...thread, text });
        return;
      }
      const where = { channel: ref.c, ts: ref.t, runId: run.id, asked: run.requester, question: ref.q, threadTs: run.conversation.threadTs };
      // As the store keeps it: a secret in the answer is not shown in the thread.
      const shown = redactText(answer, deps.secrets);
      await showAnswered(client, where, { by: userId, answer: shown });
      // Its reminder may have posted it again: those copies are marked answered too (the answer counts either way).
      const copies = {
        channel: ref.c,
        threadTs: run.conversation.threadTs,
        by: userId,
        answer: shown,
        question: { runId: run.id, question: ref.q },
        except: ref.t,
      };
      await markAnsweredInThread(client, copies).catch((error: unknown) =>
        deps.logger.warn({ err: describeError(error), runId: run.id }, 'could not mark every copy of the question answered'),
      );
    } catch (error) {
      deps.logger.error({ err: describeError(error), runId: run.id }, 'answering a question failed');
      await tellPrivately(client, deps.logger, { ...thread, text: `Your answer was not recorded: ${describeError(error)}. ${TRY_AGAIN}` });
    }
  });
}
