/**
 * Drives one executing run: every step whose dependencies succeeded starts at once (up to the
 * concurrency limit), references are filled from recorded outputs, budgets are checked before each
 * start, and when nothing more can start the run is finished, paused, or handed to the supervisor.
 * State lives in the store; the driver only keeps a mirror of what it wrote itself.
 */
import { movesFrom } from '../model/run-moves.ts';
import type { AgentContext } from '../context.ts';
import type { ExecutionPass } from './execution-pass.ts';
import { openExecutionPass } from './open-execution-pass.ts';
import { nextActions, type ExecutorAction, type Settlement } from './execution-rules.ts';
import { cancelUnstarted, finishRun } from './run-ending.ts';
import { runTimeLeftMs } from '../model/budgets.ts';
import { recoverRunningSteps } from './resume.ts';
import { handOverFailure } from './supervisor.ts';
import { dispatch } from './ready-steps.ts';
import { sleep } from '../sleep.ts';
import { plainText, words } from '../text/text.ts';
import { replanRun } from '../ports/effects.ts';

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
    if (!(await this.ctx.replica.leases.claim(this.runId))) return;
    try {
      let first = true;
      do {
        this.wakeRequested = false;
        // The first pass settles steps a dead driver left running; every pass reads the run again.
        await this.driveOnce(first);
        first = false;
      } while (this.wakeRequested && !this.stopping);
    } finally {
      if (!this.abandoned)
        await this.ctx.replica.leases
          .release(this.runId)
          .catch((error: unknown) => this.ctx.logger.warn({ runId: this.runId, err: error }, 'could not release run lease'));
    }
  }

  private async driveOnce(recoverFirst: boolean): Promise<void> {
    const hooks = {
      signal: this.controller.signal,
      superseded: () => this.superseded,
      stopping: () => this.stopping,
      onSystemError: (error: unknown) => this.controller.abort(error),
      succeeded: (pass: ExecutionPass, stepId: string) => this.finishing(pass, stepId),
    };
    let pass = await openExecutionPass(this.ctx, this.runId, hooks);
    // Steps a dead driver left running are settled before anything starts, from the rows the pass just
    // read; the pass is opened again on what the recovery wrote (a step a person must decide on waits for
    // its own answer, the rest goes on).
    if (pass && recoverFirst && pass.steps.some((step) => step.status === 'running')) {
      await recoverRunningSteps(this.ctx, pass.run, pass.steps);
      pass = await openExecutionPass(this.ctx, this.runId, hooks);
    }
    if (!pass) return;
    const deadline = setTimeout(() => this.wake(), Math.max(0, runTimeLeftMs(this.ctx.config.settings.budgets, pass.opened.runStartedAt, this.ctx.now())) + 5);
    deadline.unref?.(); // a timer alone must not keep a process alive
    let outcome: Settlement;
    try {
      outcome = await this.loop(pass);
    } finally {
      // Also when the loop failed (the store went away): the run is driven again only once no step of
      // this pass is still under way, so a re-drive reconciles finished calls, never one in flight.
      await Promise.allSettled(pass.running);
      await pass.events.flush();
      clearTimeout(deadline);
    }
    pass.report();
    if (pass.systemError) throw pass.systemError;
    if (this.stopping || this.superseded) return;
    await this.settle(pass, outcome);
  }

  /** Asks the rules what comes next and performs it, until they say how the run ends (or the driver stops). */
  private async loop(pass: ExecutionPass): Promise<Settlement> {
    while (!this.stopping && !pass.systemError) {
      if (pass.refused && !(await this.stillOnVersion(pass))) return { status: 'none' };
      const actions = this.ask(pass);
      for (const [index, action] of actions.entries()) {
        const ending = await this.perform(pass, action);
        if (action.kind === 'skip' && actions[index + 1]?.kind !== 'skip') pass.report(); // once for a batch of skips
        if (ending) return ending;
      }
    }
    return { status: 'none' };
  }

  /**
   * The one place the rules are asked. A halted pass (a spent budget, a system error) counts as stopping: a
   * success that ends after it starts nothing.
   */
  private ask(pass: ExecutionPass): ExecutorAction[] {
    return nextActions(pass.state(this.stopping || this.controller.signal.aborted || pass.systemError !== null));
  }

  /**
   * A step succeeded, and what starts with it is the rules' to say: performed here, or by the loop if it asks
   * first. Only the success, or a token read before it, comes back while a success waits.
   */
  private async finishing(pass: ExecutionPass, stepId: string): Promise<void> {
    while (pass.waitsToFinish(stepId)) for (const action of this.ask(pass)) await this.perform(pass, action);
  }

  /** Performs one action; returns how the run ends when the action ends the loop. */
  private async perform(pass: ExecutionPass, action: ExecutorAction): Promise<Settlement | undefined> {
    switch (action.kind) {
      case 'requeue':
        if (await pass.requeue(action.stepId)) return undefined;
        return (await this.lookAgain(pass)) ? undefined : { status: 'none' };
      case 'skip':
        await pass.skip(action.stepId, action.reason);
        return undefined;
      case 'read-tokens':
        await pass.readTokens();
        return undefined;
      case 'start':
        pass.start(action.stepId);
        return undefined;
      case 'finish':
      case 'finish-and-start':
        pass.finish(action.stepId, action.kind === 'finish' ? [] : action.dependants);
        return undefined;
      case 'hand-over':
        await this.handOver(pass, action.stepId);
        return undefined;
      case 'stop':
        // A step's note is plain text: the setting is named by its role there, and by its variable in the summary.
        this.controller.abort(new Error(plainText(action.reason)));
        return { status: 'failed', reason: action.reason };
      case 'wait':
        return (await this.waitForChange(pass)) ? undefined : { status: 'none' };
      case 'wait-foreign':
        await sleep(FOREIGN_POLL_MS, this.controller.signal);
        return (await this.lookAgain(pass)) ? undefined : { status: 'none' };
      case 'recover-foreign':
        // A step that needs a person has its own escalation now (lookAgain counts it as told).
        await recoverRunningSteps(this.ctx, pass.run);
        return (await this.lookAgain(pass)) ? undefined : { status: 'none' };
      case 'drain':
        return { status: 'none' };
      case 'settle':
        return action.outcome;
    }
  }

  /**
   * A failure is told of at once: its own escalation (the run goes on around it), or a new plan once idle. One
   * new plan answers every failed read. A failure that goes to a person while a new plan waits calls that plan
   * off: it would close the person's escalation unasked, so the read that asked for it is escalated too (the
   * rules hand it over again, and with a person now waiting it is escalated).
   */
  private async handOver(pass: ExecutionPass, stepId: string): Promise<void> {
    const failed = pass.records.get(stepId);
    if (!failed) return;
    const pending = pass.replanning;
    const response = await handOverFailure(this.ctx, pass.run, pass.version, failed, { othersWaiting: pass.escalated.size > 0 });
    if (response.kind === 'replan')
      pass.replanning = pending
        ? { ...pending, answers: new Set([...pending.answers, stepId]), reason: words`${pending.reason}; ${response.reason}` }
        : { stepId, answers: new Set([stepId]), reason: response.reason };
    else {
      pass.escalated.add(stepId);
      pass.replanning = null;
    }
    pass.report();
  }

  /**
   * Waits for a running step, a wake, or (sharing the store with peers) the refresh interval: a decision
   * recorded by another replica (an answer, a cancel) reaches this driver only through the store.
   * False when the run left `executing` meanwhile.
   */
  private async waitForChange(pass: ExecutionPass): Promise<boolean> {
    let refreshDue = false;
    let refreshTimer: ReturnType<typeof setTimeout> | undefined;
    const refresh = this.ctx.replica.soleOwner
      ? []
      : [new Promise<void>((resolve) => (refreshTimer = setTimeout(() => ((refreshDue = true), resolve()), this.ctx.replica.leases.settings.refreshMs)))];
    await Promise.race([...pass.running, new Promise<void>((resolve) => (this.wakeUp = resolve)), ...refresh]);
    clearTimeout(refreshTimer);
    this.wakeUp = null;
    if (!(this.wakeRequested || refreshDue) || this.stopping) return true;
    this.wakeRequested = false;
    return this.lookAgain(pass);
  }

  /** Mirrors what changed in the store under us (a retry, an answer, a peer's step); false when the run is no longer executing. */
  private async lookAgain(pass: ExecutionPass): Promise<boolean> {
    await pass.refresh();
    return this.stillExecuting();
  }

  /** False when the run left `executing` behind this driver's back (cancelled, aborted elsewhere): running steps are stopped, nothing is settled. */
  private async stillExecuting(): Promise<boolean> {
    const fresh = await this.ctx.store.getRun(this.runId);
    if (fresh?.status === 'executing') return true;
    this.superseded = true;
    this.halt();
    return false;
  }

  /**
   * A claim was refused with its step left pending: starting it again would be refused again, until the step
   * budget ended the run. False when this pass must end: the run left `executing` (this driver stops, writing
   * nothing more), or another version is current (the next pass follows it).
   */
  private async stillOnVersion(pass: ExecutionPass): Promise<boolean> {
    pass.refused = false;
    const fresh = await this.ctx.store.getRun(this.runId);
    if (fresh?.status !== 'executing') {
      this.superseded = true;
      this.halt();
      return false;
    }
    if (fresh.currentPlanVersion === pass.version) return true;
    this.wakeRequested = true;
    return false;
  }

  private async settle(pass: ExecutionPass, outcome: Settlement): Promise<void> {
    const { ctx, runId } = this;
    if (outcome.status === 'failed') {
      await cancelUnstarted(ctx, runId, `not started: ${plainText(outcome.reason)}`);
      await finishRun(ctx, runId, 'failed', words`Stopped because ${outcome.reason}.`);
    } else if (outcome.status === 'replan') {
      await ctx.effects.perform(replanRun(runId, pass.replanning?.reason ?? 'a step failed', ['executing']));
    } else if (outcome.status === 'succeeded') {
      await finishRun(ctx, runId, 'succeeded', null);
    } else if (outcome.status === 'paused') {
      await this.pause(pass);
    }
  }

  private async pause(pass: ExecutionPass): Promise<void> {
    const { ctx, runId } = this;
    if (!(await ctx.store.transitionRun(runId, ['executing'], 'paused'))) return;
    await ctx.store.appendEvent(runId, 'run-paused', { reason: 'waiting for a person' });
    await ctx.thread.boards.changed(runId);
    // An answer, a Retry or a Confirm that landed while this driver settled found the run still executing
    // and left the resuming to it: when a step can start again, or nothing waits any more, go on (the
    // transition lets one resumer win).
    const steps = (await ctx.store.listSteps(runId, pass.version)).filter((step) => step.kind === 'forward');
    const statusOf = new Map(steps.map((step) => [step.stepId, step.status]));
    const startable = dispatch(pass.plan.steps, (stepId) => statusOf.get(stepId)).ready.length > 0;
    const waiting = steps.some((step) => step.status === 'waiting');
    const held = (await ctx.store.listEscalations(runId)).some((escalation) => escalation.status === 'open');
    if ((startable || (!waiting && !held)) && (await ctx.store.transitionRun(runId, movesFrom('resume'), 'executing'))) {
      await ctx.store.appendEvent(runId, 'run-resumed', {});
      this.wake();
    }
  }
}
