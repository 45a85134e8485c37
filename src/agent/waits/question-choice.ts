/**
 * Which open question a person's answer is for, and whether they may give it. A run can wait on several
 * questions at once (parallel ask_human steps): an Answer form names its question (its button carries the id), so
 * the answer goes to that one and no other; a mention names none, so it goes to a question handed to the speaker
 * (a Reassign) when there is one, else to the oldest open question.
 *
 * The requester and the approvers may answer any question. Someone else may answer a question handed to them
 * (under the settings: a policy file decides answering on its own, and a hand-over was only made to someone it
 * permits); someone a question was handed away from is told who has it now.
 */
import type { AgentContext } from '../context.ts';
import type { Refusal } from '../model/refusal.ts';
import type { QuestionRecord, RunRecord } from '../ports/run-store.ts';
import { person, type Text, words } from '../text/text.ts';
import { currentAddressee, handedAwayFrom } from './addressee.ts';
import { waitKey } from './wait.ts';

type AnswerRefusal = Refusal<'not-requester-or-approver', Text>;

/** The question to answer (undefined: the store's oldest open one), or why this person's answer is not taken. */
export type QuestionChoice = { ok: true; questionId: string | undefined } | { ok: false; refusal: AnswerRefusal };

/**
 * `standing`: the refusal of this person as neither the requester nor an approver, or undefined when they are one.
 * `named`: the question an Answer form was opened on.
 */
export async function chooseQuestion(
  ctx: AgentContext,
  run: RunRecord,
  input: { userId: string; named: string | undefined; standing: AnswerRefusal | undefined },
): Promise<QuestionChoice> {
  const { userId, named, standing } = input;
  const open = (await ctx.store.listQuestions(run.id)).filter(
    (q) => q.answer === null && q.planVersion === run.currentPlanVersion && (named === undefined || q.id === named),
  );
  const events = open.length > 0 ? await ctx.store.listEvents(run.id) : [];
  const keyOf = (question: QuestionRecord) => waitKey({ kind: 'question', question });
  const handedToSpeaker = open.filter((q) => currentAddressee(events, 'question', keyOf(q))?.to === userId);
  if (!standing) return { ok: true, questionId: named ?? handedToSpeaker[0]?.id };
  if (handedToSpeaker.length > 0 && ctx.config.policy.current().fromSettings === true) return { ok: true, questionId: handedToSpeaker[0]!.id };
  const handedAway = open.find((q) => handedAwayFrom(events, 'question', keyOf(q), userId));
  const addressee = handedAway && currentAddressee(events, 'question', keyOf(handedAway));
  if (!addressee) return { ok: false, refusal: standing };
  return {
    ok: false,
    refusal: {
      code: 'not-requester-or-approver',
      message: words`This question was handed to ${person(addressee.to)} by ${person(addressee.by)}, so your answer was not taken; ${person(addressee.to)}, ${person(run.requester)} (who asked) or an approver can answer it.`,
    },
  };
}
