/**
 * createAgent: the agent behind the AgentApi port. Each call returns once its decision is stored;
 * planning and execution continue in the background and report through the Surface.
 */
import type { AgentContext, AgentDeps } from './context.ts';
import { decide, checkEdit, editPlan, revisePlan } from './plan-decisions.ts';
import { resolveEscalation } from './escalation-resolution.ts';
import { RunDriver } from './executor.ts';
import { runHousekeeping } from './housekeeping.ts';
import { cancelRun, followUp } from './follow-up.ts';
import { planRun } from './planning.ts';
import type { AgentApi } from './ports/agent-api.ts';
import { redactingStore } from './redacting-store.ts';
import { resumeRuns } from './resume.ts';
import { createRunLeases, DEFAULT_REPLICA_SETTINGS } from './run-leases.ts';
import { safeSurface } from './safe-surface.ts';
import { decideTarget } from './target-decision.ts';
import { sweepOwed } from './outbox.ts';
import { finishEndedRuns } from './run-ending.ts';
import { createToolRegistry } from './tool-registry.ts';

export interface Agent extends AgentApi {
  /** Resolves when no planning or execution is under way in this process (tests, the CLI). */
  idle(): Promise<void>;
  /** One housekeeping sweep (reminders, expiry, re-pings, stuck steps); the runtime calls it every minute. */
  housekeep(now?: Date): Promise<void>;
}

/** How often this replica looks for owed messages nobody is delivering. */
const OWED_SWEEP_MS = 5_000;

export function createAgent(deps: AgentDeps): Agent {
  const drivers = new Map<string, { driver: RunDriver; done: Promise<void> }>();
  const stopped = new Set<string>();
  const background = new Set<Promise<unknown>>();
  let accepting = true;
  let adoption: ReturnType<typeof setInterval> | undefined;
  let owedSweep: ReturnType<typeof setInterval> | undefined;

  const track = <T>(work: Promise<T>, what: string, runId?: string): void => {
    const guarded = work.catch((error: unknown) => deps.logger.error({ runId, err: error }, `${what} failed`));
    background.add(guarded);
    void guarded.finally(() => background.delete(guarded));
  };

  const ctx: AgentContext = {
    store: redactingStore(deps.store, deps.settings.secrets),
    llm: deps.llm,
    tools: createToolRegistry(deps.tools),
    surface: safeSurface(deps.surface, deps.logger),
    deliverySurface: deps.surface,
    approvers: deps.approvers,
    settings: deps.settings,
    logger: deps.logger,
    owner: deps.owner,
    soleOwner: deps.soleOwner ?? false,
    leases: createRunLeases({
      store: deps.store,
      owner: deps.owner,
      soleOwner: deps.soleOwner ?? false,
      settings: { ...DEFAULT_REPLICA_SETTINGS, ...deps.replicas },
      logger: deps.logger,
      // A peer adopted the run (this replica looked dead): stop here without settling anything.
      onLost: (runId) => drivers.get(runId)?.driver.abandon(),
    }),
    runbooks: deps.runbooks,
    now: deps.clock ?? (() => new Date()),
    usage: (runId, role) => async (response) => {
      if (deps.usageRecordedByLlm) return;
      await ctx.store.recordUsage({
        runId,
        role,
        provider: response.provider,
        model: response.model,
        inputTokens: response.usage.inputTokens,
        outputTokens: response.usage.outputTokens,
        costUsd: response.costUsd,
      });
    },
    spawn: (work, what, runId) => track(work, what, runId),
    kick(runId) {
      if (!accepting || stopped.has(runId)) return;
      const active = drivers.get(runId);
      if (active) return active.driver.wake();
      const driver = new RunDriver(ctx, runId);
      const done = driver.drive().finally(() => {
        if (drivers.get(runId)?.driver === driver) drivers.delete(runId);
        if (driver.missedWake) ctx.kick(runId);
      });
      drivers.set(runId, { driver, done });
      track(done, 'executing run', runId);
    },
    async stopDriver(runId, kind) {
      if (kind !== 'halt') stopped.add(runId); // the run is ending: nothing may drive it again
      const active = drivers.get(runId);
      if (!active) return false;
      active.driver.halt();
      await active.done.catch(() => undefined);
      return true;
    },
  };

  const idle = async (): Promise<void> => {
    while (background.size) await Promise.allSettled([...background]);
  };

  return {
    idle,
    housekeep: (now) => runHousekeeping(ctx, now ?? ctx.now()),
    async startRun(input) {
      // A request handled again after a crash: its run exists, and resume has picked it up.
      const existing = input.requestId ? await ctx.store.findRunByRequest(input.requestId) : undefined;
      if (existing) return existing;
      const run = await ctx.store.createRun(input);
      // Planning holds the run's lease from the start: peers leave it alone, and adopt it if this replica dies mid-plan.
      const holding = await ctx.leases.claim(run.id).catch(() => false);
      await ctx.store.appendEvent(run.id, 'run-created', { task: input.task.slice(0, 2000), requester: input.requester, origin: input.origin });
      // A claim stuck behind a busy store can outlast the adoption grace of a run never leased: a peer then
      // adopts the run and plans it (and may be done already). Planning it here as well would propose a
      // second version, and every click on the first would be refused as replaced. Holding the lease, a run
      // still unplanned is ours to plan: no peer plans without it.
      const fresh = holding ? await ctx.store.getRun(run.id) : undefined;
      if (!fresh || fresh.status !== 'planning' || fresh.currentPlanVersion !== null) {
        if (holding) await ctx.leases.release(run.id).catch(() => undefined);
        deps.logger.warn({ runId: run.id, owner: deps.owner }, 'a peer took the new run before its creator could; it plans the run');
        return run;
      }
      await ctx.surface.planning(run);
      const planning = planRun(ctx, run).finally(() => ctx.leases.release(run.id).catch(() => undefined));
      track(planning, 'planning', run.id);
      return run;
    },
    // A decision holds the run's lease while it moves the run on and hands it to a driver or planner
    // here, so no peer adopts the run in between.
    decide: (input) => ctx.leases.during(input.runId, () => decide(ctx, input)),
    checkEdit: (input) => checkEdit(ctx, input),
    editPlan: (input) => ctx.leases.during(input.runId, () => editPlan(ctx, input)),
    async revisePlan(input) {
      const holding = await ctx.leases.claim(input.runId).catch(() => false);
      const release = () => (holding ? ctx.leases.release(input.runId).catch(() => undefined) : undefined);
      const accepted = await revisePlan(ctx, input).catch((error: unknown) => (void release(), Promise.reject(error)));
      if (!accepted.ok) {
        await release();
        return accepted;
      }
      track(accepted.value.work.finally(release), 'revising plan', input.runId);
      return { ok: true, value: undefined };
    },
    resolveEscalation: (input) => resolveEscalation(ctx, input),
    followUp: (input) => followUp(ctx, input),
    cancel: (input) => cancelRun(ctx, input),
    confirmTarget: (input) => decideTarget(ctx, input),
    async resume() {
      await resumeRuns(ctx, { startUp: true });
      // What runs owed their threads when the last process stopped, then, every few seconds, what a
      // dead peer left owed or a failed delivery deferred.
      track(
        finishEndedRuns(ctx).then(() => sweepOwed(ctx, { startUp: true })),
        'delivering owed messages',
      );
      if (!owedSweep && accepting) {
        owedSweep = setInterval(() => track(sweepOwed(ctx, { startUp: false }), 'delivering owed messages'), OWED_SWEEP_MS);
        owedSweep.unref?.();
      }
      // From now on, runs whose replica died (its lease ran out) are adopted here too.
      if (ctx.soleOwner || adoption || !accepting) return;
      let scanning = false;
      adoption = setInterval(() => {
        if (scanning) return;
        scanning = true;
        void resumeRuns(ctx, { startUp: false })
          .catch((error: unknown) => deps.logger.warn({ err: error }, 'adoption scan failed'))
          .finally(() => (scanning = false));
      }, ctx.leases.settings.adoptEveryMs);
      adoption.unref?.(); // a timer alone must not keep a process alive
    },
    async shutdown(deadlineMs) {
      accepting = false;
      clearInterval(adoption);
      clearInterval(owedSweep);
      for (const { driver } of drivers.values()) driver.drain();
      const settled = Promise.allSettled([...drivers.values()].map((d) => d.done));
      const timer = new Promise((resolve) => setTimeout(resolve, deadlineMs).unref());
      if ((await Promise.race([settled.then(() => 'done'), timer])) !== 'done') {
        for (const { driver } of drivers.values()) driver.halt();
        await settled;
      }
      // Peers adopt what is left at once instead of waiting for the leases to run out.
      await ctx.leases.stop({ releaseAll: true });
    },
  };
}
