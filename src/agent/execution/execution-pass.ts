/**
 * One pass of a driver over an executing plan version: the mirror of what the store says about its
 * steps (records, outputs, progress notes), the steps this pass runs, and the writes that change them.
 * The driver asks execution-rules.ts what to do with `state()` and calls the methods here to do it;
 * open-execution-pass.ts opens one.
 */
import type { AgentContext } from '../context.ts';
import { createEventLog, type EventLog } from '../delivery/event-log.ts';
import { TOKENS_STALE_MS, type ExecutorState } from './execution-rules.ts';
import { joinedClaims, type JoinedClaims, type StepWrites } from './joined-claims.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { FinishStepInput, RunRecord, StepRecord } from '../ports/run-store.ts';
import type { Text } from '../text/text.ts';
import { escalatedSteps, succeededOutputs } from './steps/step-facts.ts';
import { runStep, type StepOutcome } from './steps/step-runner.ts';
import type { LiveBoard } from '../delivery/board-writer.ts';
import { passReads } from './pass-reads.ts';

/** What the pass needs of its driver. */
export interface PassHooks {
  signal: AbortSignal;
  /** The run moved on elsewhere: the board is another replica's to write. */
  superseded(): boolean;
  /** The driver was told to drain or halt: start nothing more. */
  stopping(): boolean;
  /** Something no step outcome covers went wrong: stop every running step. */
  onSystemError(error: unknown): void;
  /**
   * A step of `pass` succeeded and its success waits to be stored: ask the rules, and perform what they say,
   * until `pass.finish` took it. Rejects when that fails (the step's finish then fails with it).
   */
  succeeded(pass: ExecutionPass, stepId: string): Promise<void>;
}

/** A step's success waiting for the rules' `finish` or `finish-and-start`. */
interface WaitingFinish {
  input: FinishStepInput & { output: Record<string, unknown> };
  stored(written: Promise<boolean>): void;
  failed(error: unknown): void;
}

export class ExecutionPass {
  /** Every step row of the run (all versions, undo steps too) as the pass read them when it opened. */
  readonly steps: readonly StepRecord[];
  readonly records: Map<string, StepRecord>;
  readonly events: EventLog;
  /** Failed or uncertain steps of this version handed to a person: each waits for its own answer. */
  readonly escalated: Set<string>;
  /** The new plan failures asked for (nothing new starts): the first failed step, every one it answers, and why. */
  replanning: { stepId: string; answers: Set<string>; reason: Text } | null = null;
  systemError: unknown = null;
  /** A step this pass started came back pending, its claim refused (the run left `executing`, another version is current): the driver looks. */
  refused = false;
  private readonly outputs: Map<string, Record<string, unknown>>;
  private readonly board: LiveBoard;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly specs: ReadonlyMap<string, Plan['steps'][number] & { hasDependents: boolean }>;
  private readonly writes: JoinedClaims;
  private readonly finishes = new Map<string, WaitingFinish>();
  private attempts: number;
  private tokens = 0;
  private tokensReadAt: Date | null = null;
  private tokensReading: Promise<void> | null = null;

  constructor(
    private readonly ctx: AgentContext,
    readonly run: RunRecord,
    readonly plan: Plan,
    readonly version: number,
    allSteps: readonly StepRecord[],
    private readonly hooks: PassHooks,
    /** What the run's opening read: its escalated steps, its tokens, and where its clock counts from (budgets.ts `runClockAt`). */
    readonly opened: { escalated?: readonly string[]; tokens?: { total: number; readAt: Date }; runStartedAt: Date },
  ) {
    this.steps = allSteps;
    const forward = allSteps.filter((step) => step.kind === 'forward');
    this.outputs = succeededOutputs(allSteps);
    this.records = new Map(forward.filter((step) => step.planVersion === version).map((step) => [step.stepId, step]));
    this.attempts = forward.reduce((sum, step) => sum + step.attempt, 0);
    this.escalated = new Set(opened.escalated);
    this.tokens = opened.tokens?.total ?? 0;
    this.tokensReadAt = opened.tokens?.readAt ?? null;
    this.events = createEventLog(ctx, run.id);
    const dependedOn = new Set(plan.steps.flatMap((step) => step.dependsOn)); // once, not a walk of the plan at every start
    this.specs = new Map(plan.steps.map((step) => [step.id, { ...step, hasDependents: dependedOn.has(step.id) }]));
    this.writes = joinedClaims(ctx.store);
    this.board = ctx.thread.boards.live({ run, version, plan, records: () => this.records.values(), superseded: () => hooks.superseded() });
  }

  state(stopping: boolean): ExecutorState {
    const { ctx, run } = this;
    return {
      steps: this.plan.steps,
      records: this.records,
      inFlight: new Set(this.inFlight.keys()),
      finishing: new Set(this.finishes.keys()),
      escalated: this.escalated,
      replanning: this.replanning?.stepId ?? null,
      replanAnswers: this.replanning?.answers ?? new Set(),
      stopping,
      attempts: this.attempts,
      tokens: this.tokens,
      tokensReadAt: this.tokensReadAt,
      replans: run.replans,
      runStartedAt: this.opened.runStartedAt,
      now: ctx.now(),
      budgets: ctx.config.settings.budgets,
      concurrency: ctx.config.settings.concurrency,
      owner: ctx.replica.owner,
      soleOwner: ctx.replica.soleOwner,
    };
  }

  get running(): Promise<void>[] {
    return [...this.inFlight.values()];
  }

  async skip(stepId: string, reason: string): Promise<void> {
    const { run, version } = this;
    await this.ctx.store.setStepStatus({ runId: run.id, planVersion: version, stepId, from: ['pending'], to: 'skipped', error: { message: reason } });
    this.events.append('step-skipped', { planVersion: version, stepId, reason });
    this.setLocal(stepId, { status: 'skipped', error: { message: reason } });
  }

  /**
   * Puts a step its driver stopped back to pending, only while the run is still executing (a cancel on
   * its way ends it first). False when the store refused: the step or the run moved on.
   */
  async requeue(stepId: string): Promise<boolean> {
    const { run, version } = this;
    const record = this.records.get(stepId);
    const requeued = await this.ctx.store.setStepStatus({
      runId: run.id,
      planVersion: version,
      stepId,
      from: ['cancelled'],
      to: 'pending',
      error: null,
      whileRunIs: 'executing',
    });
    if (!requeued) return false;
    this.events.append('step-requeued', {
      runId: run.id,
      planVersion: version,
      stepId,
      attempt: record?.attempt ?? 0,
      why: 'its driver stopped before it ended',
    });
    this.setLocal(stepId, { status: 'pending', error: null, finishedAt: null });
    return true;
  }

  /**
   * Reads the run's token total (one read at a time: a caller during a read waits for that one), with the
   * other passes that ask in the same turn (pass-reads.ts).
   */
  readTokens(): Promise<void> {
    this.tokensReading ??= passReads(this.ctx.store)
      .tokens(this.run.id)
      .then((tokens) => {
        this.tokens = tokens;
        this.tokensReadAt = this.ctx.now();
      })
      .finally(() => (this.tokensReading = null));
    return this.tokensReading;
  }

  /**
   * The rules want a token total read in the last TOKENS_STALE_MS before they start a step. Read while a
   * step runs, it is fresh when the step ends, so its dependants start without a read between its end
   * and their claims. A failed read here is left for the rules' own read to meet.
   */
  private readTokensAhead(): void {
    const readAt = this.tokensReadAt?.getTime();
    if (this.tokensReading || (readAt !== undefined && this.ctx.now().getTime() - readAt < TOKENS_STALE_MS / 2)) return;
    this.readTokens().catch(() => undefined);
  }

  start(stepId: string, outputs: ReadonlyMap<string, Record<string, unknown>> = this.outputs): void {
    // Started already by a success stored while the driver went through its actions (finish-and-start): not twice.
    if (this.inFlight.has(stepId)) return;
    const { ctx, run, version, specs } = this;
    const { title, tool, args, expect, hasDependents } = specs.get(stepId)!;
    this.attempts++;
    // A retried step's earlier failure was answered: a new one is told of again.
    this.escalated.delete(stepId);
    this.setLocal(stepId, { status: 'running', startedAt: ctx.now() });
    const task = runStep(
      ctx,
      run,
      { planVersion: version, stepId, kind: 'forward', title, tool, args, expect, hasDependents },
      {
        runSignal: this.hooks.signal,
        events: this.events,
        outputs,
        // Once the claim is stored, not before: on PGlite a read queued ahead of the claim would delay it.
        onClaimed: (record) => (this.records.set(stepId, record), this.reportSoon(), this.readTokensAhead()),
        onProgress: (note) => (this.board.note(stepId, note), this.reportSoon()),
        writes: this.stepWrites,
      },
    )
      .then((outcome) => this.mirrorOutcome(stepId, outcome))
      .catch((error: unknown) => {
        this.systemError ??= error;
        this.hooks.onSystemError(error);
      })
      .finally(() => this.inFlight.delete(stepId));
    this.inFlight.set(stepId, task);
  }

  /**
   * A step's success waits for the rules to say what starts with it (the driver asks them: `hooks.succeeded`);
   * its other ends are stored at once.
   */
  private readonly stepWrites: StepWrites = {
    claimStep: (input) => this.writes.claimStep(input),
    finishStep: (input) => {
      const { output } = input;
      if (input.status !== 'succeeded' || !output) return this.writes.finishStep(input);
      const stored = new Promise<boolean>((resolve, reject) =>
        this.finishes.set(input.stepId, { input: { ...input, output }, stored: resolve, failed: reject }),
      );
      this.hooks.succeeded(this, input.stepId).catch((error: unknown) => {
        const waiting = this.finishes.get(input.stepId);
        this.finishes.delete(input.stepId);
        waiting?.failed(error);
      });
      return stored;
    },
  };

  /**
   * The rules' `finish` or `finish-and-start`: stores a waiting success together with the claims of `dependants`
   * (joined-claims.ts), and starts them. Nothing when the success was already taken.
   */
  finish(stepId: string, dependants: readonly string[]): void {
    const waiting = this.finishes.get(stepId);
    if (!waiting) return;
    this.finishes.delete(stepId);
    try {
      // Held before the dependants start, so that their claims find it and go with it, never before it.
      const written = this.writes.finishWith(waiting.input, dependants);
      // The mirror's outputs learn the output once it is stored; these dependants fill their references from it now.
      const outputs = new Map(this.outputs).set(stepId, waiting.input.output);
      for (const dependant of dependants) this.start(dependant, outputs);
      waiting.stored(written);
    } catch (error) {
      waiting.failed(error);
    }
  }

  /** Whether a step's success still waits for the rules. */
  waitsToFinish(stepId: string): boolean {
    return this.finishes.has(stepId);
  }

  /** Someone else changed the store (an answer, a retry, a peer's step): mirror it, except steps this pass runs. */
  async refresh(): Promise<void> {
    const [steps, escalations] = await Promise.all([this.ctx.store.listSteps(this.run.id, this.version), this.ctx.store.listEscalations(this.run.id)]);
    for (const step of steps) if (step.kind === 'forward' && !this.inFlight.has(step.stepId)) this.records.set(step.stepId, step);
    // Escalations opened elsewhere (a recovery, a peer) count as told; an answered one let its step move on.
    for (const stepId of escalatedSteps(escalations, this.version)) this.escalated.add(stepId);
    // An answered question settled its step with the answer as output: dependants fill references from it.
    for (const step of this.records.values()) if (step.status === 'succeeded' && step.output) this.outputs.set(step.stepId, step.output);
  }

  /** Shows the board after this turn's changes (delivery/board-writer.ts). */
  reportSoon(): void {
    this.board.reportSoon();
  }

  /** Shows the board in the thread now. */
  report(): void {
    this.board.report();
  }

  private async mirrorOutcome(stepId: string, outcome: StepOutcome): Promise<void> {
    const now = this.ctx.now();
    if (outcome.status === 'succeeded') {
      this.outputs.set(stepId, outcome.output);
      this.setLocal(stepId, { status: 'succeeded', output: outcome.output, finishedAt: now });
      if (outcome.note) this.board.note(stepId, outcome.note);
    } else if (outcome.status === 'failed' || outcome.status === 'uncertain') {
      this.setLocal(stepId, { status: outcome.status, error: outcome.error, finishedAt: now });
    } else if (outcome.status === 'lost') {
      const fresh = (await this.ctx.store.listSteps(this.run.id, this.version)).find((step) => step.stepId === stepId && step.kind === 'forward');
      if (fresh) this.records.set(stepId, fresh);
      if (fresh?.status === 'pending') this.refused = true;
      // Another writer settled it (a peer's recovery reconciled it as done): its dependants fill their references
      // from that output, or the rules would start them on an output map that never heard of it.
      if (fresh?.status === 'succeeded' && fresh.output) this.outputs.set(stepId, fresh.output);
    } else this.setLocal(stepId, { status: outcome.status, finishedAt: now });
    this.reportSoon();
  }

  private setLocal(stepId: string, patch: Partial<StepRecord>): void {
    const current = this.records.get(stepId);
    if (current) this.records.set(stepId, { ...current, ...patch });
  }
}
