/** A Confirm or Abort click on a late-bound target: checked, decided in one store transaction, carried out (Abort rolls back as an escalation's Abort does). */
import { checkConfirmer, checkRequesterOrApprover } from './approval-policy.ts';
import type { ConfirmGrant } from './run-action-checks.ts';
import type { AgentContext } from '../context.ts';
import { continueIfClear } from './escalation-resolution.ts';
import { abortRun, abortUnattended } from './run-abort.ts';
import type { ConfirmationRecord, RunRecord } from '../ports/run-store.ts';
import { refuse, type Refusal, type Refused } from '../model/refusal.ts';
import { isFinal } from '../execution/run-ending.ts';
import { person, plainText, type Text, words } from '../text/text.ts';
import { decided, decideHolding, drive, type Decided } from '../ports/effects.ts';
import { EXPIRED_BY } from '../waits/wait-state.ts';

interface ConfirmInput {
  runId: string;
  planVersion: number;
  stepId: string;
  userId: string;
  decision: 'confirm' | 'abort';
}

export type { ConfirmRefusalCode } from '../model/refusal.ts';
import type { ConfirmRefusalCode } from '../model/refusal.ts';

type ConfirmResult = Refused<void, ConfirmRefusalCode, Text>;

/** The click, and what should happen next: the wiring performs it, then lets go of the run's lease taken here. */
export async function decideTarget(ctx: AgentContext, input: ConfirmInput): Promise<Decided<ConfirmResult>> {
  const run = await ctx.store.getRun(input.runId);
  if (!run) return decided(refuse('run-missing', 'That run does not exist.'));
  const pending = await findConfirmation(ctx, input);
  const refused = refusal(run, pending, await stepNamed(ctx, input));
  if (refused) return decided({ ok: false, error: refused });
  const allowed =
    input.decision === 'confirm'
      ? await checkConfirmer({
          risk: pending!.risk,
          userId: input.userId,
          policy: {
            gate: ctx.config.policy,
            run,
            // A rolling-back run waits only on its rollback steps' Confirms (the confirmations port).
            step: { id: pending!.stepId, tool: pending!.tool, args: pending!.targets, rollback: run.status === 'rolling-back' },
          },
        })
      : await checkRequesterOrApprover({
          action: 'abort',
          userId: input.userId,
          policy: { gate: ctx.config.policy, run },
        });
  if (!allowed.ok) return decided(allowed);
  // A Confirm records the policy it was permitted under, so the audit judges it by that policy, not today's.
  const grant = allowed.value ?? undefined;
  // Held while the run is moved on and until the wiring handed it to a driver, so no peer adopts it in between.
  return decideHolding(ctx.replica.leases, run.id, () => carryOut(ctx, input, grant));
}

async function carryOut(ctx: AgentContext, input: ConfirmInput, grant: ConfirmGrant | undefined): Promise<Decided<ConfirmResult>> {
  const confirmed = await ctx.store.decideConfirmation({ ...input, decision: input.decision === 'confirm' ? 'confirmed' : 'aborted' });
  if (!confirmed) {
    // The conditions were checked again inside the transaction; say which one changed.
    const [run, now, step] = await Promise.all([ctx.store.getRun(input.runId), findConfirmation(ctx, input), stepNamed(ctx, input)]);
    return decided({
      ok: false,
      error: (run && refusal(run, now, step)) ?? { code: 'moved-on', message: 'The run moved on while you decided; nothing was done.' },
    });
  }
  const { planVersion, stepId, userId } = input;
  const step = await stepNamed(ctx, input);
  if (input.decision === 'confirm') {
    await ctx.store.appendEvent(input.runId, 'target-confirmed', {
      planVersion,
      stepId,
      by: userId,
      targets: confirmed.targets,
      ...(grant ? { policy: grant } : {}),
    });
    if ((await ctx.store.getRun(input.runId))?.status === 'rolling-back') {
      // The rollback stopped at this step; it goes on from here and ends the run as the Abort would have.
      return decided({ ok: true, value: undefined }, [
        abortRun(input.runId, words`Aborted; the rollback went on once ${person(userId)} confirmed what ${step} acts on.`),
      ]);
    }
    // An executing run's driver looks again.
    return decided({ ok: true, value: undefined }, [...(await continueIfClear(ctx, input.runId)), drive(input.runId)]);
  }
  await ctx.store.appendEvent(input.runId, 'target-aborted', { planVersion, stepId, by: userId, targets: confirmed.targets });
  return decided({ ok: true, value: undefined }, [abortRun(input.runId, words`Aborted by ${person(userId)} instead of confirming what ${step} acts on.`)]);
}

async function findConfirmation(ctx: Pick<AgentContext, 'store'>, input: ConfirmInput): Promise<ConfirmationRecord | undefined> {
  return (await ctx.store.listConfirmations(input.runId)).find((c) => c.planVersion === input.planVersion && c.stepId === input.stepId);
}

/**
 * The step as the thread names it, by its title in quotes (“Merge the release PR”), as the Confirm message and
 * the plan do; a person never saw its id. "this step" when its record is gone.
 */
async function stepNamed(ctx: Pick<AgentContext, 'store'>, input: Pick<ConfirmInput, 'runId' | 'planVersion' | 'stepId'>): Promise<string> {
  const step = (await ctx.store.listSteps(input.runId, input.planVersion)).find((s) => s.stepId === input.stepId);
  return step ? `“${step.title}”` : 'this step';
}

/** A Confirm of a plan that another version replaced, in plain words: the person never saw version numbers on it. */
export const CONFIRM_PLAN_CHANGED = 'The plan has changed since this was asked (a newer plan is in this thread); nothing was done.';

/** Why this click cannot decide anything now, or null; `step` names the step it was asked for (stepNamed). */
function refusal(run: RunRecord, confirmation: ConfirmationRecord | undefined, step: string): Refusal<ConfirmRefusalCode, Text> | null {
  const said = (code: ConfirmRefusalCode, message: Text) => ({ code, message });
  if (isFinal(run.status)) return said('run-ended', `The run already ended (${run.status}); nothing was done.`);
  if (!confirmation) return said('not-waiting', `${capitalized(step)} is not waiting for a Confirm; nothing was done.`);
  if (confirmation.status !== 'pending')
    return said('already-decided', words`This was already ${confirmation.status} by ${person(confirmation.decidedBy ?? '?')}.`);
  // A rollback step undoes a change of whichever version made it, and no version is proposed while a run rolls back.
  if (run.status !== 'rolling-back' && run.currentPlanVersion !== confirmation.planVersion) return said('plan-changed', CONFIRM_PLAN_CHANGED);
  return null;
}

/** "This step" at the start of a sentence; a title in quotes is left as it is. */
function capitalized(named: string): string {
  return named.charAt(0).toUpperCase() + named.slice(1);
}

/** Who "decided" a Confirm nobody answered in time: no person, so no approver check and no one's click recorded. */
export { EXPIRED_BY };

/**
 * A Confirm nobody answered within the wait's time to live aborts its step (CONTRACT §5): the step never runs, what
 * depends on it is skipped with it, and the rest of the run goes on as approved; the run cannot end "succeeded".
 * Expiry confirms nothing and starts nothing of its own. A rollback step's Confirm is different: the run is already
 * being undone, and with nobody there to watch an undo it ends aborted with nothing more run, naming the undos left
 * (abortUnattended). False when someone decided first (or the run moved on).
 */
export async function expireConfirmation(ctx: AgentContext, confirmation: ConfirmationRecord, waited: Text): Promise<boolean> {
  const { runId, planVersion, stepId } = confirmation;
  const expired = await ctx.replica.leases.during(runId, async () => {
    const decided = await ctx.store.decideConfirmation({ runId, planVersion, stepId, userId: EXPIRED_BY, decision: 'aborted' });
    if (!decided) return undefined;
    await ctx.store.appendEvent(runId, 'target-aborted', { planVersion, stepId, by: EXPIRED_BY, targets: decided.targets });
    const run = await ctx.store.getRun(runId);
    if (run?.status === 'rolling-back') {
      await abortUnattended(
        ctx,
        runId,
        words`Nobody confirmed what ${await stepNamed(ctx, confirmation)} acts on within ${waited}, so it did not run and the run was aborted.`,
      );
      return { run, undo: true };
    }
    const reason = `aborted: nobody confirmed what it acts on within ${plainText(waited)}, so it did not run`;
    if (await ctx.store.setStepStatus({ runId, planVersion, stepId, from: ['waiting'], to: 'skipped', error: { message: reason, code: 'target-expired' } }))
      await ctx.store.appendEvent(runId, 'step-skipped', { planVersion, stepId, reason });
    // What depends on it is skipped by the rules; the rest goes on (a run paused only for this Confirm resumes).
    for (const effect of await continueIfClear(ctx, runId)) await ctx.effects.perform(effect);
    return { run, undo: false };
  });
  if (!expired) return false;
  // Its copies say so at once, not at the run's end: the rest of the run may wait on other things for days, and a
  // live-looking Confirm misleads (a click is refused). Outside the lease: Slack is slow at times.
  const { run, undo } = expired;
  const why = words`Expired: nobody confirmed within ${waited}, so this ${undo ? 'undo' : 'step'} did not run${undo ? ' and the run was aborted' : ''}.`;
  if (run) await ctx.thread.surface.confirmExpired?.(run, confirmation, why);
  return true;
}
