/**
 * A run's true outcome, derived from what happened to its steps and their checks, never from its status
 * alone: a run the executor finished is "succeeded" only when every step succeeded and every check passed;
 * otherwise it finished with what was skipped, failed or left unchecked. A cancel names what may have
 * happened anyway; an Abort names what was rolled back and what is still in place. The board's title, its
 * cards and the summary are all drawn from this one function, so they cannot disagree.
 */
import { z } from 'zod';
import type { RunStatus, StepStatus } from './statuses.ts';
import { skippedWhileUncertain, type ChangeFacts } from './step-change.ts';

/** How one step ended, as a person reads it (a skip by a person is a skip, whatever its record says). */
export type StepShown = StepStatus;

export interface OutcomeStep {
  title: string;
  kind: 'forward' | 'rollback';
  status: StepShown;
  /** The check of its result could not be made (the evaluator model was down): not a pass. */
  unchecked?: boolean;
  /** It made its change (model/step-change.ts), its check passed or not: what it changed may need undoing. */
  madeChange?: boolean;
  /**
   * What earlier attempts of it made elsewhere (a Retry that posted a second comment), by attempt number: no undo
   * reaches those (an undo is filled from the step's one output), so after an Abort they are still in place.
   */
  madeEarlier?: readonly number[];
  /** Names the step within the run (plan version and step id), so an undo can say which change it undid. */
  key?: string;
  /** A rollback step: the key of the forward step it undoes. */
  undoes?: string;
  /** A step of an earlier plan version that a replan replaced: its failure is still part of the outcome. */
  replaced?: boolean;
  /** The step began (an attempt was made): a cancelled one was stopped on its way, not left unstarted. */
  started?: boolean;
  /** Succeeded as a change whose failed check a person skipped (model/step-change.ts checkSkipped): not a pass. */
  checkSkipped?: boolean;
  /** Skipped by a person while it was uncertain (model/step-change.ts): it may have taken effect, so it counts as uncertain. */
  skippedUncertain?: boolean;
}

export const OUTCOME_KINDS = ['succeeded', 'finished-with-problems', 'failed', 'cancelled', 'aborted', 'rejected', 'expired', 'in-progress'] as const;

export const RunVerdictSchema = z.object({
  kind: z.enum(OUTCOME_KINDS),
  /** One line: "Succeeded", "Finished with 1 skipped", "Cancelled — uncertain: Deploy api may or may not have taken effect". */
  headline: z.string(),
  skipped: z.array(z.string()),
  failed: z.array(z.string()),
  uncertain: z.array(z.string()),
  unchecked: z.array(z.string()),
  rolledBack: z.array(z.string()),
  /** Changes that were made and were not undone (after an Abort or a failed rollback). */
  stillInPlace: z.array(z.string()),
  /**
   * What remains: forward steps of an ended run that never started (cancelled before they began, or left
   * pending). Absent from summaries stored before it was told.
   */
  notRun: z.array(z.string()).default([]),
  /** Forward steps a cancel or an Abort stopped on their way (a wait cut short, a question nobody answered). */
  stopped: z.array(z.string()).default([]),
  /**
   * Of `uncertain`, the steps a person skipped while they were uncertain: the run went on without them, and they
   * may have taken effect all the same. Absent from summaries stored before it was told.
   */
  skippedUncertain: z.array(z.string()).default([]),
  /**
   * Changes made whose failed check a person skipped: listed with what changed, and not as "not done". Absent from
   * summaries stored before it was told.
   */
  checkSkipped: z.array(z.string()).default([]),
});
/** As stored and shown: the lists added later (`notRun`, `stopped`) may be absent from a summary stored before them. */
export type RunVerdict = z.input<typeof RunVerdictSchema>;

const FINAL: Partial<Record<RunStatus, true>> = { succeeded: true, failed: true, aborted: true, cancelled: true, rejected: true, expired: true };

/** Step statuses that, once the run has ended, mean the step did not get done and nothing said why (no failure, no skip). */
const REMAINS: Partial<Record<StepShown, true>> = { cancelled: true, pending: true, waiting: true, running: true };

/** "Step A", "Step A and Step B", "Step A, Step B and 3 more". */
export function listed(titles: readonly string[], max = 3): string {
  const quoted = titles.slice(0, max);
  const more = titles.length - quoted.length;
  if (more > 0) return `${quoted.join(', ')} and ${more} more`;
  if (quoted.length <= 1) return quoted[0] ?? '';
  return `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}

/** The outcome of a run whose status is `status` and whose steps (forward and rollback) are `steps`. */
export function runOutcome(status: RunStatus, given: readonly OutcomeStep[]): RunVerdict {
  // A step skipped while uncertain is told as uncertain: skipping it settled nothing about what it did.
  const steps = given.map((step) => (step.status === 'skipped' && step.skippedUncertain ? { ...step, status: 'uncertain' as const } : step));
  const forward = steps.filter((step) => step.kind === 'forward' && !step.replaced);
  const undo = steps.filter((step) => step.kind === 'rollback');
  // A replaced version's failure stays a failure: the run went on with a new plan, it did not succeed at it.
  const replaced = steps.filter((step) => step.kind === 'forward' && step.replaced);
  const titles = (list: readonly OutcomeStep[], shown: StepShown) => list.filter((step) => step.status === shown).map((step) => step.title);
  const failedBefore = titles(replaced, 'failed');
  const uncertainBefore = titles(replaced, 'uncertain');
  const skipped = titles(forward, 'skipped');
  const failedNow = titles(forward, 'failed');
  const uncertainNow = [...titles(forward, 'uncertain'), ...titles(undo, 'uncertain')];
  const failed = [...failedBefore, ...failedNow];
  const uncertain = [...uncertainBefore, ...uncertainNow];
  const unchecked = forward.filter((step) => step.status === 'succeeded' && step.unchecked).map((step) => step.title);
  const checkSkipped = forward.filter((step) => step.status === 'succeeded' && step.checkSkipped).map((step) => step.title);
  const rolledBack = titles(undo, 'succeeded');
  // A change stays in place unless an undo of it succeeded; said after an Abort, or when undo steps ran.
  const undone = new Set(undo.filter((step) => step.status === 'succeeded' && step.undoes).map((step) => step.undoes));
  const made = forward.filter((step) => step.madeChange && !(step.key && undone.has(step.key)));
  const earlier = forward.flatMap((step) => (step.madeEarlier ?? []).map((attempt) => `${step.title} (what attempt ${attempt} made)`));
  const stillInPlace = status === 'aborted' || undo.length > 0 ? [...made.map((step) => step.title), ...earlier] : [];
  // What an ended run left undone without a failure or a skip: stopped on its way, or never started at all.
  const ended = Boolean(FINAL[status]);
  const halted = forward.filter((step) => ended && (REMAINS[step.status] ?? false));
  const onItsWay = (step: OutcomeStep) => step.status === 'running' || (step.started === true && step.status !== 'pending');
  const stopped = halted.filter(onItsWay).map((step) => step.title);
  const notRun = halted.filter((step) => !onItsWay(step)).map((step) => step.title);
  const skippedUncertain = forward.filter((step) => step.skippedUncertain && step.status === 'uncertain').map((step) => step.title);
  const facts = { skipped, failed, uncertain, unchecked, rolledBack, stillInPlace, notRun, stopped, skippedUncertain, checkSkipped };

  if (!FINAL[status]) return { kind: 'in-progress', headline: '', ...facts };
  if (status === 'rejected') return { kind: 'rejected', headline: 'Rejected', ...facts };
  if (status === 'expired') return { kind: 'expired', headline: 'Expired', ...facts };
  if (status === 'cancelled') {
    const mayHave = uncertain.length ? ` — uncertain: ${listed(uncertain)} may or may not have taken effect` : '';
    return { kind: 'cancelled', headline: `Cancelled${mayHave}`, ...facts };
  }
  if (status === 'aborted') {
    const parts = [rolledBack.length ? `rolled back ${listed(rolledBack)}` : 'nothing was rolled back'];
    if (stillInPlace.length) parts.push(`still in place: ${listed(stillInPlace)}`);
    if (uncertain.length) parts.push(`uncertain: ${listed(uncertain)}`);
    return { kind: 'aborted', headline: `Aborted — ${parts.join('; ')}`, ...facts };
  }
  if (status === 'failed') {
    const what = failed.length ? ` — ${listed(failed)} failed` : uncertain.length ? ` — ${listed(uncertain)} uncertain` : '';
    return { kind: 'failed', headline: `Failed${what}`, ...facts };
  }
  // The executor finished: succeeded only if every step succeeded and every check passed.
  const problems = [
    skipped.length ? `${skipped.length} skipped` : '',
    failedNow.length ? `${failedNow.length} failed` : '',
    uncertainNow.length ? `${uncertainNow.length} uncertain` : '',
    unchecked.length ? `${unchecked.length} not checked` : '',
    checkSkipped.length ? `${checkSkipped.length} check skipped` : '',
  ].filter(Boolean);
  const notDone = forward.filter((step) => step.status !== 'succeeded' && step.status !== 'skipped').length;
  if (problems.length === 0 && notDone > 0) problems.push(`${notDone} not done`);
  if (failedBefore.length || uncertainBefore.length)
    return { kind: 'finished-with-problems', headline: afterReplanning(failedBefore, uncertainBefore, problems), ...facts };
  if (problems.length === 0) return { kind: 'succeeded', headline: 'Succeeded', ...facts };
  return { kind: 'finished-with-problems', headline: `Finished with ${problems.join(', ')}`, ...facts };
}

/**
 * "Finished after replanning — Deploy web failed; every step of the new plan succeeded": a run that reached
 * its end only because a new plan replaced a failed one says so, and what the new plan did.
 */
function afterReplanning(failed: readonly string[], uncertain: readonly string[], problems: readonly string[]): string {
  const before = [failed.length ? `${listed(failed)} failed` : '', uncertain.length ? `${listed(uncertain)} may or may not have taken effect` : ''].filter(
    Boolean,
  );
  const after = problems.length ? `the new plan finished with ${problems.join(', ')}` : 'every step of the new plan succeeded';
  return `Finished after replanning — ${before.join(' and ')}; ${after}`;
}

/** A step record as far as the outcome needs it. */
interface VersionedStep {
  kind: 'forward' | 'rollback';
  planVersion: number;
  status: StepShown;
  title: string;
  /** A skip by a person keeps `uncertain` here when the step was uncertain (model/step-change.ts skippedWhileUncertain). */
  error?: ChangeFacts['error'];
}

/**
 * The forward steps of plan versions before `current` that failed or were left uncertain, as the outcome
 * counts them (`replaced`). A replan draws and runs only the new version, but what went wrong before it
 * is part of the run's true outcome. Steps the replan skipped were replaced, not left undone; one a person skipped
 * while it was uncertain is still uncertain.
 */
export function replacedFailures(steps: readonly VersionedStep[], current: number): OutcomeStep[] {
  return steps
    .filter((step) => step.kind === 'forward' && step.planVersion < current)
    .map((step) => ({
      title: step.title,
      kind: 'forward' as const,
      status: skippedWhileUncertain({ status: step.status, error: step.error ?? null }) ? 'uncertain' : step.status,
    }))
    .filter((step) => step.status === 'failed' || step.status === 'uncertain')
    .map((step) => ({ ...step, replaced: true }));
}

/** What a run still in progress is doing, for a board's title. */
export type ProgressPhase =
  | { phase: 'running' }
  /** Every step is done; the run is checking results before it ends. */
  | { phase: 'checking' }
  | { phase: 'waiting'; for: 'confirm' | 'answer' | 'decision' }
  | { phase: 'rolling-back' }
  | { phase: 'planning' }
  | { phase: 'awaiting-approval' };

export interface ProgressStep extends OutcomeStep {
  /** What the step waits for, when it waits on a person. */
  waitingFor?: 'confirm' | 'answer' | 'decision' | null;
}

/** The phase of a run not yet ended, from its status and steps. */
export function progressPhase(status: RunStatus, steps: readonly ProgressStep[]): ProgressPhase {
  const forward = steps.filter((step) => step.kind === 'forward');
  if (status === 'rolling-back') return { phase: 'rolling-back' };
  if (status === 'planning') return { phase: 'planning' };
  if (status === 'awaiting-approval' || status === 'awaiting-answer') return { phase: 'awaiting-approval' };
  const waiting = forward.find((step) => step.status === 'waiting');
  if (waiting) return { phase: 'waiting', for: waiting.waitingFor === 'confirm' ? 'confirm' : 'answer' };
  if (status === 'paused') return { phase: 'waiting', for: 'decision' };
  const allEnded = forward.length > 0 && forward.every((step) => step.status !== 'pending' && step.status !== 'running' && step.status !== 'waiting');
  // Nothing left to run but failures a person must decide on: the run is about to pause for them.
  if (allEnded && forward.some((step) => step.waitingFor === 'decision')) return { phase: 'waiting', for: 'decision' };
  return allEnded ? { phase: 'checking' } : { phase: 'running' };
}
