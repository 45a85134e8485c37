/**
 * What happens when a step fails: a possible side effect, a failure no new plan can fix (a host or
 * repository not allowed, a missing credential), a failed check, or a failed write or destructive step
 * goes to a person; a failed read step asks for a new plan for the remaining work while
 * the budget allows (the reason says which step failed and why), else a person. The new plan is
 * made by planning (planning/replan.ts), reached through the `replan` effect.
 */
import type { AgentContext } from '../context.ts';
import { escalate } from './escalation.ts';
import { replanBlocked } from './escalation-offer.ts';
import { unfixableFailure } from './unfixable-failures.ts';
import type { RunRecord, StepRecord } from '../ports/run-store.ts';
import { type Text, words } from '../text/text.ts';
import { UNCHECKED } from '../model/step-codes.ts';

/** What the supervisor did with a failure: a person was asked (the run goes on around it), or a new plan is wanted. */
export type HandOver = { kind: 'escalated' } | { kind: 'replan'; reason: Text };

/**
 * Decides, at once, what a failed or uncertain step of an executing run calls for. Every failure that
 * needs a person gets its own escalation while the run keeps executing what does not depend on it
 * (the driver pauses the run once nothing else can go on). A failed read step asks for a new plan
 * only while no other failure waits for a person: a new plan would close their escalations unasked.
 */
export async function handOverFailure(
  ctx: AgentContext,
  run: RunRecord,
  version: number,
  failed: StepRecord,
  options: { othersWaiting: boolean },
): Promise<HandOver> {
  const message = failed.error?.message ?? 'failed without a message';
  const base = { runId: run.id, planVersion: version, stepId: failed.stepId, pauseFrom: [], board: false };
  if (failed.status === 'uncertain') {
    await escalate(ctx, { ...base, kind: 'uncertain-side-effect', message: `${failed.stepId} (${failed.tool}) may or may not have taken effect: ${message}` });
    return ESCALATED;
  }
  const unfixable = unfixableFailure(failed.error);
  if (unfixable) {
    // A host or repository not allowed, a missing credential: a new plan cannot fix it, so the replan budget is kept.
    await escalate(ctx, { ...base, kind: 'step-failed', message: `${failed.stepId} (${failed.title}) was not run: ${message}` });
    return ESCALATED;
  }
  if (failed.error?.code === UNCHECKED) {
    await escalate(ctx, { ...base, kind: 'unchecked', message: `${failed.stepId} (${failed.title}) ran but its result could not be checked: ${message}` });
    return ESCALATED;
  }
  if (failed.error?.code === 'evaluation-failed') {
    await escalate(ctx, { ...base, kind: 'evaluation-failed', message: `${failed.stepId} (${failed.title}) ran but its result failed the check: ${message}` });
    return ESCALATED;
  }
  if (failed.risk !== 'read') {
    // A failed change (a deploy that concluded `failure`, a merge GitHub refused) is a person's call, not the planner's.
    await escalate(ctx, { ...base, kind: 'step-failed', message: `${failed.stepId} (${failed.title}) is a ${failed.risk} step and it failed: ${message}` });
    return ESCALATED;
  }
  const limit = options.othersWaiting ? 'another step waits for a person' : await replanBlocked(ctx, run);
  if (!limit) return { kind: 'replan', reason: `${failed.stepId} (${failed.title}) failed: ${message}` };
  await escalate(ctx, { ...base, kind: 'step-failed', message: words`${failed.stepId} (${failed.title}) failed: ${message}. No automatic replan: ${limit}.` });
  return ESCALATED;
}

const ESCALATED: HandOver = { kind: 'escalated' };
