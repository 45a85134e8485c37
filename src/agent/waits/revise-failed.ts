/**
 * A Revise closes the plan's low-confidence escalation (the person chose to have it revised). When the
 * planner then fails, the version still stands and the planner's doubt about it too: the doubt is asked
 * again as a new escalation of that version, so someone can approve it anyway, modify it or reject it,
 * instead of the run waiting with the question closed (issue 31).
 */
import type { AgentContext } from '../context.ts';
import { escalate } from '../execution/escalation.ts';
import type { EscalationRecord } from '../ports/run-store.ts';
import { type Text, words } from '../text/text.ts';

export async function reopenDoubts(
  ctx: AgentContext,
  input: { runId: string; planVersion: number; closed: readonly EscalationRecord[]; why: Text },
): Promise<void> {
  for (const doubt of input.closed) {
    await escalate(ctx, {
      runId: input.runId,
      planVersion: input.planVersion,
      stepId: null,
      kind: 'low-confidence',
      message: words`The planner could not revise the plan (${input.why}), so version ${String(input.planVersion)} still stands. ${doubt.message}`,
      pauseFrom: [], // stays awaiting approval, as the first doubt did
    });
  }
}
