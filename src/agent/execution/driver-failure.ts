/**
 * A run's driver that keeps failing on an error no step outcome covers (a write the store refused, an
 * exception) hands the run to a person instead of only logging: an escalation saying what failed, with
 * Retry (drive it again) and Abort. A store that is down cannot take the escalation either; its run is
 * driven again until the store is back, and goes on by itself.
 */
import type { AgentContext } from '../context.ts';
import { escalate } from './escalation.ts';

/** True when a person now decides (an escalation is open for it, or the run is no longer executing). */
export async function escalateDriverFailure(ctx: AgentContext, runId: string, error: unknown): Promise<boolean> {
  const run = await ctx.store.getRun(runId);
  if (!run) return true;
  if (run.status !== 'executing') return true;
  const open = (await ctx.store.listEscalations(runId)).some((e) => e.status === 'open' && e.kind === 'driver-failed');
  if (open) return true;
  await escalate(ctx, {
    runId,
    planVersion: run.currentPlanVersion,
    stepId: null,
    kind: 'driver-failed',
    message: whatFailed(error),
    pauseFrom: ['executing'],
  });
  return true;
}

/** The error's first line, cut: enough for a person to act on, never a whole prompt or stack. */
function whatFailed(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split('\n')[0] ?? '').trim() || 'an unknown error';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
