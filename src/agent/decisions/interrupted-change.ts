/**
 * A person's edit or revision that a dead replica was making. The run is left `planning`, which an
 * adopter would otherwise plan again from the task, replacing what the person asked for. Instead:
 * a version that was stored is proposed as the edit or revision it is; a change that never reached
 * the store hands the plan back to waiting for a decision. An edit's submission, replayed from the inbox
 * (it was stored before its ack and its handler had not finished), makes the edit again; a revision's
 * click was handled once the planner started, so the thread is told to ask again.
 */
import type { AgentContext } from '../context.ts';
import type { RunRecord } from '../ports/run-store.ts';
import { proposeVersion } from '../planning/propose-version.ts';
import type { Effect } from '../ports/effects.ts';
import type { RunEvent } from '../model/run-events.ts';

const CHANGE_STARTS: Record<string, 'edit' | 'revision'> = { 'plan-edit-started': 'edit', 'revision-requested': 'revision' };

/**
 * What should happen next when the run was in the middle of a person's change, now carried on (often nothing);
 * undefined when its planning is the planner's own.
 */
export async function resumeInterruptedChange(ctx: AgentContext, run: RunRecord): Promise<Effect[] | undefined> {
  const change = interruptedChange(await ctx.store.listEvents(run.id));
  if (!change) return undefined;
  const stored = change.proposed === undefined ? undefined : await ctx.store.getPlanVersion(run.id, change.proposed);
  if (stored) return proposeVersion(ctx, stored, { from: ['planning'], kind: change.kind });
  if (!(await ctx.store.transitionRun(run.id, ['planning'], 'awaiting-approval'))) return [];
  ctx.logger.warn({ runId: run.id, change: change.kind }, 'a plan change was cut short by a stop; the plan waits for a decision again');
  // An edit's submission is replayed from the inbox; a revision's click was done once the planner started, so say so.
  if (change.kind === 'revision')
    await ctx.thread.surface.notify(
      run,
      `The revision you asked for was cut short by a restart; v${run.currentPlanVersion ?? '?'} still stands. Ask again with Modify.`,
    );
  return [];
}

/** The change the run's last events show in progress: its start, then at most the version it stored (adoptions aside). */
function interruptedChange(events: readonly RunEvent[]): { kind: 'edit' | 'revision'; proposed?: number } | undefined {
  const relevant = events.filter((event) => event.type !== 'run-adopted');
  const last = relevant.at(-1);
  if (last && CHANGE_STARTS[last.type]) return { kind: CHANGE_STARTS[last.type]! };
  const before = relevant.at(-2);
  if (before && CHANGE_STARTS[before.type] && last?.type === 'plan-proposed') return { kind: CHANGE_STARTS[before.type]!, proposed: last.data.version };
  return undefined;
}
