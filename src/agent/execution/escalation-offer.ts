/**
 * What an escalation offers, decided by kind from the store: only the answers that can work, and in
 * plain words what happened, what already changed and what waits. Asked when the message is delivered
 * (and posted again), so it says what holds then: a model configured, the budgets left.
 */
import type { AgentContext } from '../context.ts';
import { descendantsOf } from './ready-steps.ts';
import type { EscalationAction, EscalationAnswer, EscalationRecord, RunRecord, StepRecord } from '../ports/run-store.ts';
import type { EscalationOffer } from '../ports/surface.ts';
import { replanLimits, runClockAt, runClockStart } from '../model/budgets.ts';
import { type Text, words } from '../text/text.ts';
import { unfixableFailure, unfixableWords, type UnfixableFailure } from './unfixable-failures.ts';
import { stepNoteWords } from '../model/step-results.ts';
import { madeItsChange, skippedWhileUncertain } from '../model/step-change.ts';
import { planDigest, shortDigest } from '../model/plan/plan-digest.ts';

/**
 * What an answer is stored as: Approve anyway goes ahead as Skip does, Reject ends the run. Try again is what a
 * failed replan offered before it named its step (decision 052): a click on such a message asks for a new plan.
 */
export const ACTS_AS: Record<Exclude<EscalationAnswer, 'modify'>, EscalationAction> = {
  retry: 'retry',
  skip: 'skip',
  replan: 'replan',
  abort: 'abort',
  approve: 'skip',
  reject: 'abort',
  'try-again': 'replan',
};

/** The facts that decide which answers can work. */
export interface AnswerFacts {
  kind: EscalationRecord['kind'];
  /** The escalation is about a step (Retry and Skip need one). */
  hasStep: boolean;
  /** A planner model is configured and the run's budgets allow another plan. */
  canReplan: boolean;
  /** The failure is one no new plan can fix (a host or repository not allowed, a missing credential). */
  unfixable: boolean;
}

/**
 * The answers that can work, by kind. A low-confidence plan is approved anyway, modified or rejected;
 * a step is retried, skipped, replanned or aborted, also when the new plan its failure asked for could
 * not be made (a failed replan of the run as a whole is replanned again or aborted). Replan only where a
 * new plan can be made and could help; a rollback step that was refused only informs.
 */
export function escalationAnswers(facts: AnswerFacts): EscalationAnswer[] {
  const replan: EscalationAnswer[] = facts.canReplan && !facts.unfixable ? ['replan'] : [];
  switch (facts.kind) {
    case 'low-confidence':
      return ['approve', 'modify', 'reject'];
    case 'driver-failed':
      return ['retry', 'abort'];
    case 'not-approved':
      // A rollback step whose plan changed: the rollback goes on without it; there is nothing to choose.
      return facts.hasStep ? [] : [...replan, 'abort'];
    case 'rollback-failed':
      // The run was aborted and its rollback goes on: no answer can work, a person undoes it by hand.
      return [];
    default:
      return facts.hasStep ? ['retry', 'skip', ...replan, 'abort'] : [...replan, 'abort'];
  }
}

/**
 * An answer offered for this escalation. For messages posted before answers had names, a stored action counts as
 * the answer that acts as it; a failed replan's Try again, from before it offered Replan, counts as Replan.
 */
export function isOffered(answers: readonly EscalationAnswer[], answer: EscalationAnswer): boolean {
  if (answer === 'try-again') return answers.includes('replan');
  return answers.includes(answer) || answers.some((offered) => offered !== 'modify' && ACTS_AS[offered] === answer);
}

/** Why a replan may not happen now, or null. */
export async function replanBlocked(ctx: Pick<AgentContext, 'config' | 'models' | 'now' | 'store'>, run: RunRecord): Promise<Text | null> {
  if (!ctx.models.llm.has('planner')) return 'no planner model is configured';
  const [usage, approvals, clockFacts] = await Promise.all([ctx.store.usageTotals(run.id), ctx.store.listApprovals(run.id), ctx.store.clockFactsOf([run.id])]);
  const start = runClockStart(approvals);
  const now = ctx.now();
  return replanLimits(ctx.config.settings.budgets)({
    stepAttempts: 0,
    replans: run.replans,
    tokens: usage.inputTokens + usage.outputTokens,
    // Time the run only waited for people (this escalation's own wait too, so far) is not spent.
    runStartedAt: start && runClockAt(start, now, clockFacts.get(run.id) ?? { waits: [], working: [] }),
    now,
  });
}

/** What an escalation is about: enough to decide its offer before it is stored. */
export type EscalationSubject = Pick<EscalationRecord, 'kind' | 'stepId' | 'planVersion'> & { message?: Text };

/** The answers this escalation offers now (a model configured, the budgets left, the failure). */
export async function offeredAnswers(ctx: AgentContext, run: RunRecord, escalation: EscalationSubject, steps?: StepRecord[]): Promise<EscalationAnswer[]> {
  const step = escalation.stepId ? (steps ?? (await ctx.store.listSteps(run.id))).find((s) => isStepOf(s, escalation)) : undefined;
  return escalationAnswers({
    kind: escalation.kind,
    hasStep: escalation.stepId !== null,
    canReplan: (await replanBlocked(ctx, run)) === null,
    unfixable: unfixableFailure(step?.error ?? null) !== null,
  });
}

/** What the escalation message says and offers; `note` goes above it when it is posted again. */
export async function escalationOffer(ctx: AgentContext, run: RunRecord, escalation: EscalationSubject, note?: string): Promise<EscalationOffer> {
  const steps = await ctx.store.listSteps(run.id);
  const step = escalation.stepId ? steps.find((s) => isStepOf(s, escalation)) : undefined;
  const answers = await offeredAnswers(ctx, run, escalation, steps);
  const version = run.currentPlanVersion ?? escalation.planVersion;
  const forward = steps.filter((s) => s.kind === 'forward');
  // What was made, this step's change included when its call went through and only its check failed.
  const changed = forward.filter(madeItsChange).map((s) => s.title);
  // What may have changed, this step aside (what happened says so): a skip of an uncertain step settled nothing.
  const mayHaveChanged = forward.filter((s) => s !== step && (s.status === 'uncertain' || skippedWhileUncertain(s))).map((s) => s.title);
  const plan = version === null ? undefined : await ctx.store.getPlanVersion(run.id, version);
  // What waits on this answer: for a step, only what depends on it (not started, or skipped because it
  // failed: Retry or Skip may bring them back), since the rest goes on; otherwise every step not started.
  const blocked = step ? descendantsOf(plan?.plan.steps ?? [], step.stepId) : new Set<string>();
  const waits = (s: StepRecord) =>
    step && escalation.stepId
      ? blocked.has(s.stepId) && (s.status === 'pending' || s.status === 'waiting' || s.status === 'skipped')
      : s.status === 'pending' || s.status === 'waiting';
  const onHold = escalation.kind === 'low-confidence' ? [] : forward.filter((s) => s.planVersion === version && waits(s)).map((s) => s.title);
  // A Skip accepts a result where there is one (what depends on it runs); with none, what depends on it is skipped
  // too (escalation-resolution.ts stepMoves), and the offer says so rather than leaving them "on hold".
  const skipAlsoSkips = step && !step.output && answers.includes('skip') ? onHold : [];
  const succeeded = new Set(forward.filter((s) => s.status === 'succeeded' || madeItsChange(s)).map((s) => `${s.planVersion}/${s.stepId}`));
  const versions = await ctx.store.listPlanVersions(run.id);
  const abortRollsBack = versions.some((v) => v.plan.rollback.some((r) => !r.undoes || succeeded.has(`${v.version}/${r.undoes}`))) && succeeded.size > 0;
  return {
    answers,
    happened: happened(escalation, step, plan?.plan.steps.length ?? 0),
    stepTitle: step?.title ?? null,
    changed,
    ...(mayHaveChanged.length ? { mayHaveChanged } : {}),
    onHold,
    skipAlsoSkips,
    abortRollsBack,
    ...(escalation.kind === 'low-confidence' && escalation.planVersion !== null ? { plan: await doubtedPlan(ctx, run.id, escalation.planVersion) } : {}),
    ...(note ? { note } : {}),
  };
}

/** The plan a low-confidence escalation doubts: its version, and the digest its "Approve anyway" binds to. */
async function doubtedPlan(ctx: AgentContext, runId: string, version: number): Promise<{ version: number; digest?: string }> {
  const stored = await ctx.store.getPlanVersion(runId, version);
  return { version, ...(stored ? { digest: shortDigest(await planDigest(stored.plan)) } : {}) };
}

/** The step an escalation is about: a forward step, or for a refused rollback step that rollback step. */
const isStepOf = (step: StepRecord, escalation: EscalationSubject) =>
  step.stepId === escalation.stepId &&
  step.planVersion === escalation.planVersion &&
  (step.kind === 'rollback') === (escalation.kind === 'not-approved' || escalation.kind === 'rollback-failed');

/** What happened, in one sentence a person can read: the step by its title, the tool's words for a failure, never ids, settings or parser errors. */
function happened(escalation: EscalationSubject, step: StepRecord | undefined, planSteps: number): Text {
  const title = step ? `“${step.title}”` : 'A step';
  // An argument's error names the argument, not the step's id ("argument number: …", as on the board).
  const why = step?.error?.message ? `: ${cleanReason(stepNoteWords(step.error.message, step.stepId, () => undefined))}` : '';
  const unfixable = unfixableFailure(step?.error ?? null);
  switch (escalation.kind) {
    case 'low-confidence':
      return `The planner is not confident in this plan (${planSteps} ${planSteps === 1 ? 'step' : 'steps'}), so nothing has run yet.`;
    case 'replan-failed':
      if (!step) return 'The planner could not make a new plan for the rest of the work.';
      return step.status === 'uncertain'
        ? words`${title} may or may not have taken effect${why}, and the planner could not make a new plan for the rest of the work.`
        : words`${title} failed${why}, and the planner could not make a new plan for the rest of the work.`;
    case 'not-approved':
      return step
        ? `The rollback step ${title} was not run: its plan changed after it was approved. The rest of the rollback goes on; undo it by hand if it is needed.`
        : 'This plan version changed after it was approved (or has no approval that lets it run), so nothing was started.';
    case 'uncertain-side-effect':
      return words`${title} may or may not have taken effect${why}.`;
    case 'rollback-failed':
      return step?.status === 'uncertain'
        ? words`The undo step ${title} may or may not have taken effect${why}. The rest of the rollback goes on; check it and undo it by hand if it is needed.`
        : words`The undo step ${title} failed${why}. The rest of the rollback goes on; undo it by hand if it is needed.`;
    case 'evaluation-failed':
      return words`${title} ran, but its result did not pass the check${why}.`;
    case 'unchecked':
      return words`${title} ran, but its result could not be checked${why.replace(/^: unchecked: /, ': ')}. Nothing that depends on it has started.`;
    case 'budget':
      return 'The run reached one of its limits.';
    case 'driver-failed':
      return words`The run stopped on an error it could not get past${escalation.message ? words`: ${escalation.message}` : ''}. Nothing more runs until someone decides.`;
    case 'step-failed':
      return unfixable
        ? words`${title} cannot run: ${unfixableReason(step!, unfixable)}. An operator must change Tandem's setup before Retry can work.`
        : words`${title} failed${why}.`;
  }
}

/** The tool's own words when they name no setting (they are the operator's), else the plain reason. */
function unfixableReason(step: StepRecord, failure: UnfixableFailure): string {
  const message = step.error?.message ?? '';
  return message && !/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/.test(message) ? cleanReason(message) : unfixableWords(failure);
}

/** A tool's failure in the words a person reads: one line, not too long. */
function cleanReason(message: string): string {
  const line = message.split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** Each answer's button label (the contract's words) and what it reads as once chosen ("Retried by …"). */
export const ANSWER_WORDS: Readonly<Record<EscalationAnswer, { label: string; past: string }>> = {
  retry: { label: 'Retry', past: 'Retried' },
  skip: { label: 'Skip', past: 'Skipped' },
  replan: { label: 'Replan', past: 'Replan asked for' },
  abort: { label: 'Abort', past: 'Aborted' },
  approve: { label: 'Approve anyway', past: 'Approved anyway' },
  modify: { label: 'Modify', past: 'Modified' },
  reject: { label: 'Reject', past: 'Rejected' },
  'try-again': { label: 'Try again', past: 'Tried again' },
};

/**
 * The answer a stored resolution was, for this escalation (a low-confidence Skip was an Approve anyway, its Replan a
 * Modify of the plan; a Retry of a failed replan with no step of its own was a Try again, stored so before decision 052).
 */
export function answerOf(escalation: Pick<EscalationRecord, 'kind' | 'stepId'>, action: EscalationAction): EscalationAnswer {
  const { kind } = escalation;
  if (kind === 'low-confidence') return action === 'abort' ? 'reject' : action === 'replan' ? 'modify' : 'approve';
  if (kind === 'replan-failed' && escalation.stepId === null && action === 'retry') return 'try-again';
  return action;
}

/** "Retry, Skip or Abort". */
export function answerList(answers: readonly EscalationAnswer[]): string {
  const labels = answers.map((answer) => ANSWER_WORDS[answer].label);
  return labels.length > 1 ? `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}` : (labels[0] ?? '');
}
