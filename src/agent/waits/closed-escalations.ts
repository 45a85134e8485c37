/**
 * Escalations closed by a decision made elsewhere: a low-confidence plan approved, rejected or modified
 * from the plan's own message answers the escalation that asked about it. The store resolves it in the
 * same decision (`alsoResolve`); here its message loses its buttons and says who chose what, so a later
 * click on it is refused (already answered) instead of looking live.
 */
import type { AgentContext } from '../context.ts';
import { escalationMessageKey } from '../delivery/owed-delivery.ts';
import type { EscalationRecord, RunRecord } from '../ports/run-store.ts';
import type { Text } from '../text/text.ts';

/** The run's open escalations of one kind, read before the decision that resolves them. */
export async function openEscalationsOf(ctx: AgentContext, runId: string, kind: EscalationRecord['kind']): Promise<EscalationRecord[]> {
  return (await ctx.store.listEscalations(runId)).filter((escalation) => escalation.status === 'open' && escalation.kind === kind);
}

/** Each closed escalation's message becomes one line saying why (`closedBy`: who chose what). Best effort, as every surface call. */
export async function tellEscalationsClosed(ctx: AgentContext, run: RunRecord, closed: readonly EscalationRecord[], closedBy: Text): Promise<void> {
  if (closed.length === 0 || !ctx.thread.surface.escalationsClosed) return;
  const steps = closed.some((escalation) => escalation.stepId !== null) ? await ctx.store.listSteps(run.id) : [];
  const titleOf = (e: EscalationRecord) => steps.find((s) => s.stepId === e.stepId && s.planVersion === e.planVersion)?.title ?? null;
  await ctx.thread.surface.escalationsClosed(
    run,
    closed.map((escalation) => ({ escalation, stepTitle: titleOf(escalation), key: escalationMessageKey(escalation) })),
    closedBy,
  );
}
