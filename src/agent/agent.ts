/**
 * createAgent: the agent behind the AgentApi port. Each call returns once its decision is stored;
 * planning and execution continue in the background and report through the Surface. The API is
 * grouped by concern: runs (start, follow up, cancel), plan decisions, escalations, and this process's
 * life (resume, shutdown, housekeeping).
 */
import { escalateDriverFailure } from './execution/driver-failure.ts';
import { RunDriver } from './execution/run-driver.ts';
import type { AgentContext, AgentDeps } from './context.ts';
import { createAgentContext } from './agent-context.ts';
import { createBackgroundWork, type BackgroundWork } from './replicas/background-work.ts';
import { checkEdit, editPlan, revisePlan } from './decisions/plan-decisions.ts';
import { planExpiredRefusal } from './decisions/closed-wait-refusal.ts';
import { answerWait } from './decisions/answer-wait.ts';
import { runHousekeeping } from './waits/housekeeping.ts';
import { reassignWait } from './waits/reassign.ts';
import { waitsFor } from './waits/waits-for.ts';
import { recordWaitPosted, waitLinks } from './waits/wait-messages.ts';
import { withApproversNamed } from './decisions/decision-refusals.ts';
import { cancelRun, followUp } from './decisions/follow-up.ts';
import { planRun } from './planning/plan-run.ts';
import type { AgentApi } from './ports/agent-api.ts';
import type { WaitMessagesPort } from './ports/run-store.ts';
import { createReplicaTimers } from './replicas/replica-timers.ts';
import { resumeRuns } from './run-adoption.ts';
import { createRunDrivers } from './replicas/run-drivers.ts';
import { finishEndedRuns } from './execution/run-ending.ts';
import { decided, drive } from './ports/effects.ts';
import { performNext } from './effects-runner.ts';

export interface Agent extends AgentApi {
  /** Resolves when no planning or execution is under way in this process (tests, the CLI). */
  idle(): Promise<void>;
  /** One housekeeping sweep (reminders, expiry, re-pings, stuck steps); the runtime calls it every minute. */
  housekeep(now?: Date): Promise<void>;
  /** Where the surface posted each wait's message, stored for boards on any replica (decision 037). */
  waitMessages: WaitMessagesPort;
}

export function createAgent(deps: AgentDeps): Agent {
  const work = createBackgroundWork(deps.logger);
  const drivers = createRunDrivers((ctx, runId) => new RunDriver(ctx, runId), work, escalateDriverFailure, deps.isStoreOutage);
  const ctx = createAgentContext(deps, drivers, work);
  const timers = createReplicaTimers(
    {
      sweepOwed: () => ctx.thread.owed.sweep({ startUp: false }),
      adoptOrphans: () => resumeRuns(ctx, { startUp: false }),
      soleOwner: ctx.replica.soleOwner,
      adoptEveryMs: ctx.replica.leases.settings.adoptEveryMs,
      owedSweepMs: ctx.replica.leases.settings.owedRetryMs,
      logger: ctx.logger,
    },
    work,
  );
  return {
    ...namingApproversIn(ctx, {
      ...runsApi(ctx, work),
      ...planDecisionsApi(ctx, work),
      resolveEscalation: async (input: Parameters<AgentApi['resolveEscalation']>[0]) =>
        performNext(
          ctx,
          await answerWait(ctx, {
            wait: { kind: 'escalation', escalationId: input.escalationId },
            userId: input.userId,
            answer: { action: input.action, digest: input.digest },
          }),
        ),
    }),
    reassign: (input) => reassignWait(ctx, input),
    waitsFor: (input) => waitsFor(ctx, input.userId),
    idle: () => work.idle(),
    housekeep: async (now) => performNext(ctx, decided(undefined, await runHousekeeping(ctx, now ?? ctx.now()))),
    waitMessages: { posted: (input) => recordWaitPosted(ctx, input), links: (runId) => waitLinks(ctx, runId) },
    async resume() {
      await resumeRuns(ctx, { startUp: true });
      // What runs owed their threads when the last process stopped; the timers then deliver what a dead
      // peer left owed or a failed delivery deferred, and adopt runs whose replica died.
      work.track(
        finishEndedRuns(ctx).then(() => ctx.thread.owed.sweep({ startUp: true })),
        'delivering owed messages',
      );
      if (drivers.accepting) timers.start();
    },
    async shutdown(deadlineMs) {
      timers.stop();
      await drivers.shutdown(deadlineMs);
      // Peers adopt what is left at once instead of waiting for the leases to run out.
      await ctx.replica.leases.stop({ releaseAll: true });
    },
  };
}

/** People's decisions whose refusals name the approvers by id when the settings decide (decision-refusals.ts). */
function namingApproversIn<Api extends Record<string, (input: never) => Promise<unknown>>>(ctx: AgentContext, api: Api): Api {
  const named = Object.entries(api).map(([key, call]) => [
    key,
    async (input: never) => withApproversNamed({ policy: ctx.config.policy, approvers: ctx.config.settings.housekeeping?.approvers ?? [] }, await call(input)),
  ]);
  return Object.fromEntries(named) as Api;
}

/** Starting a run, a follow-up in its thread, and cancelling it. */
function runsApi(ctx: AgentContext, work: BackgroundWork): Pick<AgentApi, 'startRun' | 'followUp' | 'cancel'> {
  return {
    async startRun(input) {
      // A request handled again after a crash: its run exists, and resume has picked it up.
      const existing = input.requestId ? await ctx.store.findRunByRequest(input.requestId) : undefined;
      if (existing) return existing;
      // The run is stored leased to this replica, so planning holds its lease from the first write: peers
      // leave it alone, and adopt it only if this replica dies mid-plan. (A lease claimed after the insert
      // could come late behind a busy store, and a peer would plan the run too.)
      const lease = ctx.replica.leases.newRunLease;
      const run = await ctx.store.createRun({
        ...input,
        created: { task: input.task.slice(0, 2000), requester: input.requester, origin: input.origin },
        ...(lease ? { lease } : {}),
      });
      ctx.replica.leases.holdCreated(run.id);
      await ctx.thread.surface.planning(run);
      // An auto-run plan is driven before the planning's hold is let go of: the driver takes the run while it is held.
      const planning = planRun(ctx, run)
        .then((next) => performNext(ctx, decided(undefined, next)))
        .finally(() => ctx.replica.leases.release(run.id).catch(() => undefined));
      work.track(planning, 'planning', run.id);
      return run;
    },
    followUp: async (input) => performNext(ctx, await followUp(ctx, input)),
    cancel: async (input) => performNext(ctx, await cancelRun(ctx, input)),
  };
}

/**
 * Approving, rejecting, editing and revising a plan, and confirming a step's target. A decision holds
 * the run's lease while it moves the run on, and returns what should happen next; it is performed here
 * (a driver or planner started) before the lease is let go of, so no peer adopts the run in between.
 */
function planDecisionsApi(
  ctx: AgentContext,
  work: BackgroundWork,
): Pick<AgentApi, 'decide' | 'modifyRefusal' | 'checkEdit' | 'editPlan' | 'revisePlan' | 'confirmTarget'> {
  return {
    decide: (input) =>
      ctx.replica.leases.during(input.runId, async () => {
        const { runId, planVersion, userId, decision, digest } = input;
        const answered = await answerWait(ctx, { wait: { kind: 'approval', runId, planVersion }, userId, answer: { decision, digest } });
        const { result } = answered;
        // The same click decided on a peer (a retry that reached two replicas) while this one held the lease,
        // so the peer's driver could not take the run: drive it from here, under the lease still held. A
        // driver that cannot claim the run, or finds it not executing, does nothing.
        const next = !result.ok && result.error.code === 'not-waiting' ? [...answered.next, drive(input.runId)] : answered.next;
        return performNext(ctx, { ...answered, next });
      }),
    modifyRefusal: (input) => ctx.replica.leases.during(input.runId, () => planExpiredRefusal(ctx, input)),
    checkEdit: (input) => checkEdit(ctx, input),
    editPlan: (input) => ctx.replica.leases.during(input.runId, async () => performNext(ctx, await editPlan(ctx, input))),
    async revisePlan(input) {
      const holding = await ctx.replica.leases.claim(input.runId).catch(() => false);
      const release = () => (holding ? ctx.replica.leases.release(input.runId).catch(() => undefined) : undefined);
      const accepted = await revisePlan(ctx, input).catch((error: unknown) => (void release(), Promise.reject(error)));
      if (!accepted.ok) {
        await release();
        return accepted;
      }
      const revising = accepted.value.work.then((next) => performNext(ctx, decided(undefined, next)));
      work.track(revising.finally(release), 'revising plan', input.runId);
      return { ok: true, value: undefined };
    },
    confirmTarget: async ({ runId, planVersion, stepId, userId, decision }) =>
      performNext(ctx, await answerWait(ctx, { wait: { kind: 'confirm', runId, planVersion, stepId }, userId, answer: { decision } })),
  };
}
