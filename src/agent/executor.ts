/**
 * Drives one executing run: every step whose dependencies succeeded starts at once (up to the
 * concurrency limit), references are filled from recorded outputs, budgets are checked before each
 * start, and when nothing more can start the run is finished, paused, or handed to the supervisor.
 * State lives in the store; the driver only keeps a mirror of what it wrote itself.
 */
import { riskOfTool } from './approval-policy.ts';
import { buildBoard } from './board.ts';
import type { AgentContext } from './context.ts';
import { dispatch } from './dispatcher.ts';
import { createEventLog } from './event-log.ts';
import type { Plan } from './plan.ts';
import type { RunRecord, StepRecord } from './ports/run-store.ts';
import { cancelUnstarted, finishRun } from './run-ending.ts';
import { runStep, type StepOutcome } from './step-runner.ts';
import { executionLimits, runTimeLeftMs, wallClock } from './stop-conditions.ts';
import { recoverRunningSteps } from './resume.ts';
import { onStepFailure } from './supervisor.ts';
import { sleep } from './tool-call.ts';
import { succeededOutputs } from './step-facts.ts';
import { mayStartVersion } from './version-approval.ts';

const FOREIGN_POLL_MS = 1000;

export class RunDriver {
  private stopping = false;
  private controller = new AbortController();
  private wakeRequested = false;
  private wakeUp: (() => void) | null = null;
  /** The run moved on elsewhere (another replica ended it, or adopted it): write nothing more for it. */
  private superseded = false;
  private abandoned = false;

  constructor(
    private readonly ctx: AgentContext,
    readonly runId: string,
  ) {}

  /** Something changed in the store (an answer, a resolved escalation): look again. */
  wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  /** Start no more steps; running ones finish and are recorded; the run stays as it is for resume(). */
  drain(): void {
    this.stopping = true;
    this.wake();
  }

  /** Start no more steps and cancel running ones (they are recorded as cancelled or uncertain). */
  halt(): void {
    this.drain();
    this.controller.abort(new Error('run stopped'));
  }

  /** A peer holds the run now: stop at once, without releasing its lease or settling anything. */
  abandon(): void {
    this.abandoned = true;
    this.superseded = true;
    this.halt();
  }

  /** A wake that came after the last look: the owner should drive again. */
  get missedWake(): boolean {
    return this.wakeRequested && !this.stopping;
  }

  async drive(): Promise<void> {
    // Another replica drives this run: it sees what changed in the store within its refresh interval.
    if (!(await this.ctx.leases.claim(this.runId))) return;
    try {
      // Steps a dead driver left running are settled before anything else starts.
      const run = await this.ctx.store.getRun(this.runId);
      if (run?.status === 'executing' && (await recoverRunningSteps(this.ctx, run))) return;
      do {
        this.wakeRequested = false;
        await this.driveOnce();
      } while (this.wakeRequested && !this.stopping);
    } finally {
      if (!this.abandoned)
        await this.ctx.leases
          .release(this.runId)
          .catch((error: unknown) => this.ctx.logger.warn({ runId: this.runId, err: error }, 'could not release run lease'));
    }
  }

  private async driveOnce(): Promise<void> {
    const { ctx, runId } = this;
    const run = await ctx.store.getRun(runId);
    if (!run || run.status !== 'executing' || !run.currentPlanVersion) return;
    const version = run.currentPlanVersion;
    const planVersion = await ctx.store.getPlanVersion(runId, version);
    if (!planVersion) return;
    if (!(await mayStartVersion(ctx, run, planVersion))) return;
    const plan = planVersion.plan;
    await ctx.store.createSteps(
      runId,
      version,
      plan.steps.map((step) => ({
        stepId: step.id,
        kind: 'forward',
        title: step.title,
        tool: step.tool,
        risk: riskOfTool(ctx.tools, step.tool),
        dependsOn: step.dependsOn,
        plannedArgs: step.args,
      })),
    );
    const all = await ctx.store.listSteps(runId);
    const outputs = succeededOutputs(all);
    const records = new Map(all.filter((step) => step.planVersion === version && step.kind === 'forward').map((step) => [step.stepId, step]));
    let attempts = all.filter((step) => step.kind === 'forward').reduce((sum, step) => sum + step.attempt, 0);
    let failure = [...records.values()].find((step) => step.status === 'failed' || step.status === 'uncertain') ?? null;
    let budgetStop: string | null = null;
    let systemError: unknown = null;
    const inFlight = new Map<string, Promise<void>>();
    const events = createEventLog(ctx, runId);
    const notes = new Map<string, string>();
    const specs = new Map(plan.steps.map((step) => [step.id, step]));

    const report = () => {
      if (this.superseded) return; // the board is another replica's to write now
      const steps = [...records.values()].map((step) =>
        notes.has(step.stepId) && !step.error ? { ...step, error: { message: notes.get(step.stepId)! } } : step,
      );
      void ctx.surface.reportProgress(run, buildBoard(run, version, plan, steps, ctx.now())).catch(() => undefined);
    };
    const setLocal = (stepId: string, patch: Partial<StepRecord>) => {
      const current = records.get(stepId);
      if (current) records.set(stepId, { ...current, ...patch });
    };
    const handle = async (stepId: string, outcome: StepOutcome) => {
      const now = ctx.now();
      if (outcome.status === 'succeeded') {
        outputs.set(stepId, outcome.output);
        setLocal(stepId, { status: 'succeeded', output: outcome.output, finishedAt: now });
        if (outcome.note) notes.set(stepId, outcome.note);
      } else if (outcome.status === 'failed' || outcome.status === 'uncertain') {
        setLocal(stepId, { status: outcome.status, error: outcome.error, finishedAt: now });
        failure ??= records.get(stepId) ?? null;
      } else if (outcome.status === 'lost') {
        const fresh = (await ctx.store.listSteps(runId, version)).find((step) => step.stepId === stepId && step.kind === 'forward');
        if (fresh) records.set(stepId, fresh);
      } else setLocal(stepId, { status: outcome.status, finishedAt: now });
      report();
    };
    const start = (stepId: string) => {
      const spec = specs.get(stepId)!;
      attempts++;
      setLocal(stepId, { status: 'running', startedAt: ctx.now() });
      const task = runStep(
        ctx,
        run,
        { planVersion: version, stepId, kind: 'forward', title: spec.title, tool: spec.tool, args: spec.args, expect: spec.expect },
        {
          runSignal: this.controller.signal,
          events,
          outputs,
          onClaimed: (record) => {
            records.set(stepId, record);
            report();
          },
          onProgress: (note) => {
            notes.set(stepId, note);
            report();
          },
        },
      )
        .then((outcome) => handle(stepId, outcome))
        .catch((error: unknown) => {
          systemError ??= error;
          this.controller.abort(error);
        })
        .finally(() => inFlight.delete(stepId));
      inFlight.set(stepId, task);
    };

    const deadline = setTimeout(() => this.wake(), Math.max(0, runTimeLeftMs(ctx.settings.budgets, run.createdAt, ctx.now())) + 5);
    deadline.unref?.(); // a timer alone must not keep a process alive
    try {
      let tokens = 0;
      let tokensReadAt = 0;
      while (!this.stopping && !systemError) {
        const decision = dispatch(plan.steps, (stepId) => records.get(stepId)?.status);
        for (const { stepId, reason } of decision.skip) {
          await ctx.store.setStepStatus({ runId, planVersion: version, stepId, from: ['pending'], to: 'skipped', error: { message: reason } });
          events.append('step-skipped', { planVersion: version, stepId, reason });
          setLocal(stepId, { status: 'skipped', error: { message: reason } });
        }
        if (decision.skip.length) report();
        const startable = failure ? [] : decision.ready.filter((stepId) => !inFlight.has(stepId));
        if (startable.length && Date.now() - tokensReadAt > 250) {
          const usage = await ctx.store.usageTotals(runId);
          tokens = usage.inputTokens + usage.outputTokens;
          tokensReadAt = Date.now();
        }
        const snapshot = { stepAttempts: attempts, replans: run.replans, tokens, runStartedAt: run.createdAt, now: ctx.now() };
        budgetStop = startable.length ? executionLimits(ctx.settings.budgets)(snapshot) : wallClock(ctx.settings.budgets)(snapshot);
        if (budgetStop) {
          this.controller.abort(new Error(budgetStop));
          break;
        }
        for (const stepId of startable) {
          if (inFlight.size >= Math.max(1, ctx.settings.concurrency)) break;
          start(stepId);
          if (executionLimits(ctx.settings.budgets)({ ...snapshot, stepAttempts: attempts })) break;
        }
        if (inFlight.size === 0) {
          // A step claimed by another process (a peer that took over): wait for its record.
          const foreign = [...records.values()].filter((step) => step.status === 'running');
          if (foreign.length) {
            // Its owner died if the lease ran out (or it is ours from before): settle it under the reconcile-or-escalate rule.
            if (ctx.soleOwner || foreign.some((step) => !step.leaseUntil || step.leaseUntil <= ctx.now() || step.leaseOwner === ctx.owner)) {
              if (await recoverRunningSteps(ctx, run)) break;
            } else await sleep(FOREIGN_POLL_MS, this.controller.signal);
            for (const step of await ctx.store.listSteps(runId, version)) if (step.kind === 'forward') records.set(step.stepId, step);
            for (const step of records.values()) if (step.status === 'succeeded' && step.output) outputs.set(step.stepId, step.output);
            if (!(await this.stillExecuting())) break;
            continue;
          }
          break;
        }
        // Sharing the store with peers, a decision recorded by another replica (an answer, a cancel)
        // reaches this driver only through the store: look again every refreshMs.
        let refreshDue = false;
        let refreshTimer: ReturnType<typeof setTimeout> | undefined;
        const refresh = ctx.soleOwner
          ? []
          : [new Promise<void>((resolve) => (refreshTimer = setTimeout(() => ((refreshDue = true), resolve()), ctx.leases.settings.refreshMs)))];
        await Promise.race([...inFlight.values(), new Promise<void>((resolve) => (this.wakeUp = resolve)), ...refresh]);
        clearTimeout(refreshTimer);
        this.wakeUp = null;
        if ((this.wakeRequested || refreshDue) && !this.stopping) {
          // Someone changed the store under us (a retry, an answer): refresh what we mirror.
          this.wakeRequested = false;
          for (const step of await ctx.store.listSteps(runId, version))
            if (step.kind === 'forward' && !inFlight.has(step.stepId)) records.set(step.stepId, step);
          // An answered question settled its step with the answer as output: dependants fill references from it.
          for (const step of records.values()) if (step.status === 'succeeded' && step.output) outputs.set(step.stepId, step.output);
          if (!(await this.stillExecuting())) break;
        }
      }
      await Promise.allSettled([...inFlight.values()]);
    } finally {
      await events.flush();
      clearTimeout(deadline);
    }
    report();
    if (systemError) throw systemError;
    if (this.stopping || this.superseded) return;
    await this.settle(run, plan, version, records, failure, budgetStop);
  }

  /** False when the run left `executing` behind this driver's back (cancelled, aborted elsewhere): running steps are stopped, nothing is settled. */
  private async stillExecuting(): Promise<boolean> {
    const fresh = await this.ctx.store.getRun(this.runId);
    if (fresh?.status === 'executing') return true;
    this.superseded = true;
    this.halt();
    return false;
  }

  private async settle(run: RunRecord, plan: Plan, version: number, records: Map<string, StepRecord>, failure: StepRecord | null, budgetStop: string | null) {
    const { ctx, runId } = this;
    if (budgetStop) {
      await cancelUnstarted(ctx, runId, `not started: ${budgetStop}`);
      await finishRun(ctx, runId, 'failed', `Stopped because ${budgetStop}.`);
      return;
    }
    if (failure) {
      await onStepFailure(ctx, run, plan, version, records.get(failure.stepId) ?? failure);
      return;
    }
    const statuses = plan.steps.map((step) => records.get(step.id)?.status ?? 'pending');
    if (statuses.every((status) => status === 'succeeded' || status === 'skipped')) {
      await finishRun(ctx, runId, 'succeeded', null);
    } else if (statuses.some((status) => status === 'waiting')) {
      if (!(await ctx.store.transitionRun(runId, ['executing'], 'paused'))) return;
      await ctx.store.appendEvent(runId, 'run-paused', { reason: 'waiting for a person' });
      // An answer or a Confirm that landed while this driver settled found the run still executing and
      // left the resuming to it: with nothing waiting any more, go on (the transition lets one resumer win).
      const waiting = (await ctx.store.listSteps(runId, version)).some((step) => step.kind === 'forward' && step.status === 'waiting');
      const held = (await ctx.store.listEscalations(runId)).some((escalation) => escalation.status === 'open');
      if (!waiting && !held && (await ctx.store.transitionRun(runId, ['paused'], 'executing'))) {
        await ctx.store.appendEvent(runId, 'run-resumed', {});
        this.wake();
      }
    }
  }
}
