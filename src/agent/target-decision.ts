/** A Confirm or Abort click on a late-bound target: checked, decided in one store transaction, carried out (Abort rolls back as an escalation's Abort does). */
import { checkConfirmer, checkRejecter } from './approval-policy.ts';
import type { AgentContext } from './context.ts';
import type { Result } from './errors.ts';
import { abortRun, continueIfClear } from './escalation-resolution.ts';
import type { ConfirmationRecord, RunRecord } from './ports/run-store.ts';
import { isFinal } from './run-ending.ts';
import { person, type Text, words } from './text.ts';

interface ConfirmInput {
  runId: string;
  planVersion: number;
  stepId: string;
  userId: string;
  decision: 'confirm' | 'abort';
}

export async function decideTarget(ctx: AgentContext, input: ConfirmInput): Promise<Result<void, Text>> {
  const run = await ctx.store.getRun(input.runId);
  if (!run) return { ok: false, error: 'That run does not exist.' };
  if (isFinal(run.status)) return { ok: false, error: `The run already ended (${run.status}); nothing was done.` };
  const pending = await findConfirmation(ctx, input);
  const refused = refusal(run, pending, input);
  if (refused) return { ok: false, error: refused };
  const allowed =
    input.decision === 'confirm'
      ? await checkConfirmer({ risk: pending!.risk, userId: input.userId, requester: run.requester, approvers: ctx.approvers })
      : await checkRejecter({ userId: input.userId, requester: run.requester, approvers: ctx.approvers }).then((may) =>
          may.ok ? may : { ok: false as const, error: 'Only the requester or an approver may abort this run.' },
        );
  if (!allowed.ok) return allowed;
  // Held while the run is moved on and handed to a driver here, so no peer adopts it in between.
  return ctx.leases.during(run.id, () => carryOut(ctx, input));
}

async function carryOut(ctx: AgentContext, input: ConfirmInput): Promise<Result<void, Text>> {
  const decided = await ctx.store.decideConfirmation({ ...input, decision: input.decision === 'confirm' ? 'confirmed' : 'aborted' });
  if (!decided) {
    // The conditions were checked again inside the transaction; say which one changed.
    const [run, now] = await Promise.all([ctx.store.getRun(input.runId), findConfirmation(ctx, input)]);
    return { ok: false, error: (run && refusal(run, now, input)) ?? 'The run moved on while you decided; nothing was done.' };
  }
  const { planVersion, stepId, userId } = input;
  if (input.decision === 'confirm') {
    await ctx.store.appendEvent(input.runId, 'target-confirmed', { planVersion, stepId, by: userId, targets: decided.targets });
    await continueIfClear(ctx, input.runId);
    ctx.kick(input.runId); // an executing run's driver looks again
  } else {
    await ctx.store.appendEvent(input.runId, 'target-aborted', { planVersion, stepId, by: userId, targets: decided.targets });
    await abortRun(ctx, input.runId, `Aborted by <@${userId}> instead of confirming what step ${stepId} acts on.`);
  }
  return { ok: true, value: undefined };
}

async function findConfirmation(ctx: AgentContext, input: ConfirmInput): Promise<ConfirmationRecord | undefined> {
  return (await ctx.store.listConfirmations(input.runId)).find((c) => c.planVersion === input.planVersion && c.stepId === input.stepId);
}

/** Why this click cannot decide anything now, or null. */
function refusal(run: RunRecord, confirmation: ConfirmationRecord | undefined, input: ConfirmInput): Text | null {
  if (isFinal(run.status)) return `The run already ended (${run.status}); nothing was done.`;
  if (!confirmation) return `Step ${input.stepId} of plan v${input.planVersion} is not waiting for a Confirm.`;
  if (confirmation.status !== 'pending') return words`This was already ${confirmation.status} by ${person(confirmation.decidedBy ?? '?')}.`;
  if (run.currentPlanVersion !== input.planVersion) return `The plan changed to v${run.currentPlanVersion ?? '?'} since this was asked; nothing was done.`;
  return null;
}
