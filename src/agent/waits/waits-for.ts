/**
 * "Waiting for you": every open wait a person may answer, asked of the policy or the settings the way
 * the answer asks (waits/answerers.ts; a plan's approval as a click on it is checked), plus those handed
 * to them. Read-only: nothing is stored or sent.
 */
import type { AgentContext } from '../context.ts';
import type { RunRecord, RunStatus, WaitForPerson } from '../ports/run-store.ts';
import { currentAddressee } from './addressee.ts';
import { approvalWait, confirmWait, escalationWait, questionWait, type OpenWait } from './answerers.ts';

/** Runs that can hold a wait for a person. */
const WAITING: readonly RunStatus[] = ['awaiting-approval', 'awaiting-answer', 'executing', 'paused', 'rolling-back'];
/** The newest runs looked at: App Home shows at most 15 waits. */
const LOOKED_AT = 50;

export async function waitsFor(ctx: AgentContext, userId: string): Promise<WaitForPerson[]> {
  const runs = await ctx.store.listRuns({ limit: LOOKED_AT, statuses: WAITING });
  const found: WaitForPerson[] = [];
  for (const run of runs) {
    // Another person's direct message with the bot is not theirs to see.
    if (run.requester !== userId && run.conversation.channel.startsWith('D')) continue;
    found.push(...(await personWaits(ctx, run, userId)));
  }
  return found;
}

/** The run's open approval, questions, escalations and Confirms this person may answer or was handed. */
async function personWaits(ctx: AgentContext, run: RunRecord, userId: string): Promise<WaitForPerson[]> {
  const [questions, escalations, confirmations, events] = await Promise.all([
    ctx.store.listQuestions(run.id),
    ctx.store.listEscalations(run.id),
    ctx.store.listConfirmations(run.id),
    ctx.store.listEvents(run.id),
  ]);
  const approval: [OpenWait, WaitForPerson['wait']][] =
    run.status === 'awaiting-approval' && run.currentPlanVersion !== null
      ? [[approvalWait(ctx, run, run.currentPlanVersion), { kind: 'approval', runId: run.id, planVersion: run.currentPlanVersion }]]
      : [];
  const open: [OpenWait, WaitForPerson['wait']][] = [
    ...approval,
    ...questions
      .filter((q) => q.answer === null && q.planVersion === run.currentPlanVersion)
      .map((q): [OpenWait, WaitForPerson['wait']] => [questionWait(ctx, run, q), { kind: 'question', runId: run.id, questionId: q.id }]),
    ...escalations
      .filter((escalation) => escalation.status === 'open')
      .map((escalation): [OpenWait, WaitForPerson['wait']] => [escalationWait(ctx, run, escalation), { kind: 'escalation', escalationId: escalation.id }]),
    ...confirmations
      .filter((c) => c.status === 'pending' && (run.status === 'rolling-back' || c.planVersion === run.currentPlanVersion))
      .map((c): [OpenWait, WaitForPerson['wait']] => [
        confirmWait(ctx, run, c),
        { kind: 'confirm', runId: run.id, planVersion: c.planVersion, stepId: c.stepId },
      ]),
  ];
  const found: WaitForPerson[] = [];
  for (const [wait, ref] of open) {
    const addressee = currentAddressee(events, wait.kind, wait.key);
    const handedToMe = addressee?.to === userId;
    if ((handedToMe && wait.addresseeMayAnswer) || (await wait.mayAnswer(userId)))
      found.push({ run, wait: ref, ...(handedToMe ? { handedBy: addressee.by } : {}) });
  }
  return found;
}
