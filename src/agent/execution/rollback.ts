/**
 * Undo what an aborted run changed: the planner's rollback steps for forward steps that made their change,
 * newest change first (reverse dependency order), each recorded like any step (kind `rollback`).
 * Best effort: a rollback step that fails is recorded and the others still run. A rollback step whose
 * target was filled in from words waits for a Confirm like a forward one: the rollback stops there, the
 * run stays rolling back, and the Confirm (or a restart) carries it on; after an Abort it is skipped.
 */
import { movesFrom } from '../model/run-moves.ts';
import { type RiskSource, riskOfTool } from '../model/tool-risk.ts';
import { createEventLog, type EventLog } from '../delivery/event-log.ts';
import type { AgentContext } from '../context.ts';
import type { RollbackStep } from '../model/plan/plan.ts';
import { topologicalOrder } from '../model/plan/plan-graph.ts';
import type { ConfirmationRecord, PlanVersionRecord, StepRecord } from '../ports/run-store.ts';
import { runStep } from './steps/step-runner.ts';
import { succeededOutputs } from './steps/step-facts.ts';
import { escalate } from './escalation.ts';
import { madeItsChange } from '../model/step-change.ts';
import { words } from '../text/text.ts';

interface Planned {
  version: number;
  step: RollbackStep;
  /** Position of the undone step: later changes are undone first. */
  order: number;
}

export function rollbackOrder(versions: readonly PlanVersionRecord[], steps: readonly StepRecord[], riskOf: RiskSource['riskOf']): Planned[] {
  // A change whose check failed afterwards is still a change: its undo runs too (model/step-change.ts).
  const succeeded = new Map(
    steps.filter((s) => s.kind === 'forward' && (s.status === 'succeeded' || madeItsChange(s))).map((s) => [`${s.planVersion}/${s.stepId}`, s]),
  );
  const planned: Planned[] = [];
  for (const { version, plan } of versions) {
    const topo = topologicalOrder(plan.steps);
    const changedSomething = plan.steps.some((s) => riskOfTool({ riskOf }, s.tool) !== 'read' && succeeded.has(`${version}/${s.id}`));
    plan.rollback.forEach((step, index) => {
      if (step.undoes) {
        const done = succeeded.get(`${version}/${step.undoes}`);
        if (!done) return;
        // Finish time orders across versions; topological position breaks ties within one.
        planned.push({ version, step, order: (done.finishedAt?.getTime() ?? 0) * 1000 + topo.indexOf(step.undoes) });
      } else if (changedSomething) {
        // Not tied to a step (the plan artifact has no such link): clean-ups run after the specific undos, and in
        // reverse of their listed order, as a person lists undos in the order the changes were made.
        planned.push({ version, step, order: -1 - (plan.rollback.length - 1 - index) });
      }
    });
  }
  return planned.sort((a, b) => b.order - a.order);
}

/** The rollback steps a run recorded, in the order they ran (rows created in one millisecond list by id). */
export function rollbackStepsInOrder(versions: readonly PlanVersionRecord[], steps: readonly StepRecord[], riskOf: RiskSource['riskOf']): StepRecord[] {
  const ran = rollbackOrder(versions, steps, riskOf).map((planned) => `${planned.version}/${planned.step.id}`);
  const position = (step: StepRecord) => {
    const at = ran.indexOf(`${step.planVersion}/${step.stepId}`);
    return at === -1 ? ran.length : at;
  };
  return steps.filter((step) => step.kind === 'rollback').sort((a, b) => position(a) - position(b));
}

/** 'waiting': a rollback step waits for a Confirm, and the steps after it wait with it. */
export type RollbackProgress = 'done' | 'waiting';

/**
 * A rollback step still waits for its Confirm: nobody answered (a Confirm sets the step pending again in the
 * same write, so a waiting step's request is pending or, after an Abort of it, aborted).
 */
export function awaitsConfirm(step: Pick<StepRecord, 'kind' | 'status' | 'planVersion' | 'stepId'>, confirmations: readonly ConfirmationRecord[]): boolean {
  if (step.kind !== 'rollback' || step.status !== 'waiting') return false;
  return confirmations.find((c) => c.planVersion === step.planVersion && c.stepId === step.stepId)?.status !== 'aborted';
}

export async function rollBack(ctx: AgentContext, runId: string): Promise<RollbackProgress> {
  await ctx.store.transitionRun(runId, movesFrom('roll-back'), 'rolling-back');
  const run = await ctx.store.getRun(runId);
  if (!run || run.status !== 'rolling-back') return 'done';
  const versions = await ctx.store.listPlanVersions(runId);
  const steps = await ctx.store.listSteps(runId);
  const order = rollbackOrder(versions, steps, ctx.config.tools.riskOf);
  if (order.length === 0) return 'done';
  // Once: a rollback carried on after a Confirm or a restart has its rows already.
  if (!steps.some((s) => s.kind === 'rollback'))
    await ctx.store.appendEvent(runId, 'rollback-started', { steps: order.map((p) => `${p.version}/${p.step.id}`) });
  for (const { version, step } of order) {
    await ctx.store.createSteps(runId, version, [
      {
        stepId: step.id,
        kind: 'rollback',
        title: step.title,
        tool: step.tool,
        risk: riskOfTool(ctx.config.tools, step.tool),
        dependsOn: step.undoes ? [step.undoes] : [],
        plannedArgs: step.args,
      },
    ]);
  }
  const outputs = succeededOutputs(steps);
  const events = createEventLog(ctx, runId);
  const confirmations = await ctx.store.listConfirmations(runId);
  for (const { version, step } of order) {
    // Read before createSteps, which leaves existing rows alone: a row found here is from before a restart or a Confirm.
    const existing = steps.find((s) => s.planVersion === version && s.kind === 'rollback' && s.stepId === step.id);
    if (existing?.status === 'waiting') {
      if (awaitsConfirm(existing, confirmations)) return 'waiting';
      await skipAborted(ctx, events, { runId, planVersion: version, stepId: step.id });
      continue;
    }
    if (existing && existing.status !== 'pending') continue; // done before a restart
    const record = versions.find((candidate) => candidate.version === version);
    const changed = record ? await ctx.config.approvals.rollbackContentChanged(run, record) : undefined;
    if (changed) {
      await refuseChanged(ctx, events, { runId, planVersion: version, stepId: step.id }, changed);
      continue;
    }
    const outcome = await runStep(
      ctx,
      run,
      { planVersion: version, stepId: step.id, kind: 'rollback', title: step.title, tool: step.tool, args: step.args },
      { runSignal: new AbortController().signal, events, outputs },
    );
    await events.flush();
    // A failed undo that writes is a failed write (contract §5): a person is told, by name, to undo it by hand.
    if ((outcome.status === 'failed' || outcome.status === 'uncertain') && riskOfTool(ctx.config.tools, step.tool) !== 'read')
      await escalate(ctx, {
        runId,
        planVersion: version,
        stepId: step.id,
        kind: 'rollback-failed',
        message: words`Rollback step ${step.id} (${step.title}) ${outcome.status === 'failed' ? 'failed' : 'may or may not have taken effect'}: ${outcome.error.message}`,
        pauseFrom: [],
      });
    // Not waited for: a rollback does not wait on a Slack that hangs (the writer keeps the boards in order).
    void ctx.thread.boards.changed(runId).catch((error: unknown) => ctx.logger.warn({ err: error, runId }, 'could not draw the board'));
    if (outcome.status === 'waiting') return 'waiting';
  }
  return 'done';
}

/** A rollback step whose Confirm was answered with Abort is not run; the rollback goes on without it. */
async function skipAborted(ctx: Pick<AgentContext, 'store'>, events: EventLog, key: { runId: string; planVersion: number; stepId: string }): Promise<void> {
  const error = { message: 'not run: Abort was chosen instead of confirming its target', code: 'target-aborted' };
  if (await ctx.store.setStepStatus({ ...key, from: ['waiting'], to: 'skipped', error })) {
    events.append('step-skipped', { planVersion: key.planVersion, stepId: key.stepId, reason: error.message });
    await events.flush();
  }
}

/** A rollback step of a version whose stored content changed after approval is not run: failed, and a person is told. */
async function refuseChanged(ctx: AgentContext, events: EventLog, key: { runId: string; planVersion: number; stepId: string }, why: string): Promise<void> {
  const error = { message: `not run: plan v${key.planVersion} changed after it was approved (${why})`, code: 'plan-changed' };
  if (!(await ctx.store.setStepStatus({ ...key, from: ['pending'], to: 'failed', error }))) return;
  events.append('step-failed', { ...key, kind: 'rollback', error });
  await events.flush();
  await escalate(ctx, {
    ...key,
    kind: 'not-approved',
    message: `Rollback step ${key.stepId} of plan v${key.planVersion} was not run: the plan changed after it was approved (${why}).`,
    pauseFrom: [],
  });
}
