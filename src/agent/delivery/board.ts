/** The status board: one line per step of the current plan version, plus any rollback steps. */
import type { Plan } from '../model/plan.ts';
import type { AgentContext } from '../context.ts';
import type { RunRecord, StepRecord } from '../ports/run-store.ts';
import type { BoardState, BoardStep } from '../ports/surface.ts';
import { SKIPPED_BY_PERSON } from '../model/step-codes.ts';

/**
 * Lines already drawn, by what they were drawn from (a step record, or a planned step not started yet).
 * A record is replaced by a new object whenever it changes, so one that did not change keeps its line: a
 * driver redrawing the board on every change of a plan with hundreds of steps does work in proportion to
 * what changed, not to the plan. A line whose elapsed time runs with the clock is always drawn afresh.
 */
export type BoardLines = WeakMap<object, BoardStep>;

export function buildBoard(run: RunRecord, planVersion: number, plan: Plan, steps: readonly StepRecord[], now: Date, drawn?: BoardLines): BoardState {
  const byKey = new Map(steps.map((step) => [`${step.planVersion}/${step.kind}/${step.stepId}`, step]));
  const draw = (from: object, record: StepRecord | undefined, base: Pick<BoardStep, 'stepId' | 'title' | 'tool' | 'kind'>): BoardStep => {
    const cached = drawn?.get(from);
    if (cached) return cached;
    const drawnLine = line(record, base, now);
    if (!record || !record.startedAt || record.finishedAt) drawn?.set(from, drawnLine);
    return drawnLine;
  };
  const lines: BoardStep[] = plan.steps.map((planned) => {
    const record = byKey.get(`${planVersion}/forward/${planned.id}`);
    return draw(record ?? planned, record, { stepId: planned.id, title: planned.title, tool: planned.tool, kind: 'forward' });
  });
  for (const record of steps) {
    if (record.kind === 'rollback') lines.push(draw(record, record, { stepId: record.stepId, title: record.title, tool: record.tool, kind: 'rollback' }));
  }
  return {
    runId: run.id,
    goal: plan.goal,
    planVersion,
    runStatus: run.status,
    steps: lines,
    startedAt: run.createdAt,
    elapsedMs: (run.finishedAt ?? now).getTime() - run.createdAt.getTime(),
  };
}

function line(record: StepRecord | undefined, base: Pick<BoardStep, 'stepId' | 'title' | 'tool' | 'kind'>, now: Date): BoardStep {
  if (!record) return { ...base, status: 'pending', elapsedMs: null, url: null, note: null };
  const elapsedMs = record.startedAt ? (record.finishedAt ?? now).getTime() - record.startedAt.getTime() : null;
  const url = typeof record.output?.url === 'string' ? record.output.url : (record.error?.url ?? null);
  // A failed check a person skipped keeps its result for what depends on it, but it was not done: say so.
  const status = record.error?.code === SKIPPED_BY_PERSON ? 'skipped' : record.status;
  return { ...base, status, elapsedMs, url, note: record.error?.message ?? null };
}

/** Loads the run (unless the caller just read it) and reports its board; for paths that do not hold the driver's live state. */
export async function reportBoard(ctx: AgentContext, runId: string, read?: RunRecord): Promise<void> {
  const run = read ?? (await ctx.store.getRun(runId));
  if (!run?.currentPlanVersion) return;
  const version = await ctx.store.getPlanVersion(runId, run.currentPlanVersion);
  if (!version) return;
  const steps = await ctx.store.listSteps(runId);
  await ctx.surface.reportProgress(run, buildBoard(run, version.version, version.plan, steps, ctx.now()));
}
