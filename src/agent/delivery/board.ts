/** The status board: one line per step of the current plan version, plus any rollback steps, and the run's true outcome on top. */
import type { Plan } from '../model/plan/plan.ts';
import type { SummaryPort } from '../ports/summary.ts';
import type { RunRecord, StepRecord } from '../ports/run-store.ts';
import type { BoardState, BoardStep } from '../ports/surface.ts';
import type { RunEvent } from '../model/run-events.ts';
import { eventsOfType } from '../model/run-events.ts';
import { progressPhase, replacedFailures, runOutcome } from '../model/run-outcome.ts';
import { linkLabel, stepNoteWords } from '../model/step-results.ts';
import { SKIPPED_BY_PERSON } from '../model/step-codes.ts';
import { checkSkipped, skippedWhileUncertain } from '../model/step-change.ts';

/**
 * Lines already drawn, by what they were drawn from (a step record, or a planned step not started yet).
 * A record is replaced by a new object whenever it changes, so one that did not change keeps its line: a
 * driver redrawing the board on every change of a plan with hundreds of steps does work in proportion to
 * what changed, not to the plan. A line whose elapsed time runs with the clock is always drawn afresh.
 */
export type BoardLines = WeakMap<object, BoardStep>;

/** What else the board says besides the steps: the version that replaced it, and checks that could not be made. */
export interface BoardExtras {
  /** A newer plan version replaced the one drawn. */
  replacedBy?: number | null;
  /** Steps (`planVersion/stepId`) whose result could not be checked (the evaluator model was down). */
  unchecked?: ReadonlySet<string>;
}

/** The step-runner's progress note for a result it could not check (step-runner.ts); the live board reads it. */
const UNCHECKED_NOTE = 'unchecked:';
/** A step a person skipped while it was uncertain: skipping it did not undo or settle what it may have done. */
const SKIPPED_UNCERTAIN_NOTE = 'skipped by a person while uncertain: it may or may not have taken effect';
/** A change whose failed check a person skipped from its escalation: made, and not checked. */
const CHECK_SKIPPED_NOTE = 'its check failed and a person skipped it; the change stands';
/** What a Confirm's wait writes on its step (the store's confirmations). */
const AWAITING_CONFIRMATION = 'awaiting-confirmation';

export function buildBoard(
  run: RunRecord,
  planVersion: number,
  plan: Plan,
  steps: readonly StepRecord[],
  now: Date,
  drawn?: BoardLines,
  extras: BoardExtras = {},
): BoardState {
  const byKey = new Map(steps.map((step) => [`${step.planVersion}/${step.kind}/${step.stepId}`, step]));
  // A failed step of a run still going waits for a person's decision (its escalation), not for nothing.
  const live = run.status === 'executing' || run.status === 'paused';
  const titles = new Map(plan.steps.map((planned) => [planned.id, planned.title]));
  const titleOf = (id: string) => titles.get(id);
  const draw = (from: object, record: StepRecord | undefined, base: Pick<BoardStep, 'stepId' | 'title' | 'tool' | 'kind'>): BoardStep => {
    const cached = drawn?.get(from);
    if (cached) return cached;
    const drawnLine = line(record, base, now, extras.unchecked, live, titleOf);
    if (!record || !record.startedAt || record.finishedAt) drawn?.set(from, drawnLine);
    return drawnLine;
  };
  const drawnLines: BoardStep[] = plan.steps.map((planned) => {
    const record = byKey.get(`${planVersion}/forward/${planned.id}`);
    return draw(record ?? planned, record, { stepId: planned.id, title: planned.title, tool: planned.tool, kind: 'forward' });
  });
  const lines = onHold(drawnLines, (stepId) => byKey.get(`${planVersion}/forward/${stepId}`)?.error?.message);
  for (const record of steps) {
    if (record.kind === 'rollback') lines.push(draw(record, record, { stepId: record.stepId, title: record.title, tool: record.tool, kind: 'rollback' }));
  }
  // Skipped while uncertain: the card says skipped, the outcome counts it as uncertain (model/run-outcome.ts).
  // A change whose failed check a person skipped: done, and the outcome says its check was skipped.
  const checkSkippedIds = new Set(steps.filter((s) => s.kind === 'forward' && s.planVersion === planVersion && checkSkipped(s)).map((s) => s.stepId));
  const mayHaveRun = new Set(steps.filter((s) => s.kind === 'forward' && s.planVersion === planVersion && skippedWhileUncertain(s)).map((s) => s.stepId));
  const outcomeSteps = lines.map((step) => ({
    title: step.title,
    kind: step.kind,
    status: step.status,
    unchecked: step.unchecked === true,
    waitingFor: step.waitingFor ?? null,
    skippedUncertain: step.kind === 'forward' && mayHaveRun.has(step.stepId),
    checkSkipped: step.kind === 'forward' && step.status === 'succeeded' && checkSkippedIds.has(step.stepId),
  }));
  return {
    runId: run.id,
    goal: plan.goal,
    planVersion,
    runStatus: run.status,
    steps: lines,
    startedAt: run.createdAt,
    elapsedMs: (run.finishedAt ?? now).getTime() - run.createdAt.getTime(),
    // The cards are this version's; its outcome also says what failed in a version a replan replaced.
    outcome: runOutcome(run.status, [...replacedFailures(steps, planVersion), ...outcomeSteps]),
    phase: progressPhase(run.status, outcomeSteps),
    replacedBy: extras.replacedBy ?? null,
    requester: run.requester,
  };
}

function line(
  record: StepRecord | undefined,
  base: Pick<BoardStep, 'stepId' | 'title' | 'tool' | 'kind'>,
  now: Date,
  unchecked?: ReadonlySet<string>,
  live = false,
  titleOf: (id: string) => string | undefined = () => undefined,
): BoardStep {
  if (!record) return { ...base, status: 'pending', elapsedMs: null, url: null, note: null };
  const elapsedMs = record.startedAt ? (record.finishedAt ?? now).getTime() - record.startedAt.getTime() : null;
  const url = typeof record.output?.url === 'string' ? record.output.url : (record.error?.url ?? null);
  // A failed check a person skipped keeps its result for what depends on it, but it was not done: say so. A change
  // whose failed check was skipped was made all the same: it is done, with its check skipped (CHECK_SKIPPED_NOTE).
  const status = record.error?.code === SKIPPED_BY_PERSON && !checkSkipped(record) ? 'skipped' : record.status;
  const notChecked =
    status === 'succeeded' &&
    ((record.error?.message.startsWith(UNCHECKED_NOTE) ?? false) || (unchecked?.has(`${record.planVersion}/${record.stepId}`) ?? false));
  const decision = live && record.kind === 'forward' && (status === 'failed' || status === 'uncertain');
  const waitingFor = status === 'waiting' ? (record.error?.code === AWAITING_CONFIRMATION ? 'confirm' : 'answer') : decision ? 'decision' : null;
  return {
    ...base,
    status,
    elapsedMs,
    url,
    urlLabel: url ? linkLabel(url) : null,
    // The words of a wait are the board's own ("waiting for an approver to confirm"), not the store's.
    note:
      waitingFor && !decision
        ? null
        : notChecked
          ? 'the check of its result could not be made'
          : skippedWhileUncertain(record)
            ? SKIPPED_UNCERTAIN_NOTE
            : checkSkipped(record)
              ? CHECK_SKIPPED_NOTE
              : record.error
                ? stepNoteWords(record.error.message, record.stepId, titleOf)
                : null,
    ...(notChecked ? { unchecked: true } : {}),
    ...(waitingFor ? { waitingFor } : {}),
  };
}

/** What the executor writes on a step it skipped because a step it waits for did not succeed. */
const SKIPPED_BEHIND = /^skipped: (\S+) (?:failed|uncertain|was skipped)$/;

/**
 * A step skipped behind a failure that waits for a person is on hold, not skipped: a Retry or a Skip of that
 * failure runs it after all (only an Abort leaves it skipped), and the escalation says so. Drawn after the line
 * cache, since it follows another step's state.
 */
function onHold(lines: readonly BoardStep[], skipNote: (stepId: string) => string | undefined): BoardStep[] {
  const byId = new Map(lines.map((line) => [line.stepId, line]));
  const waitedOn = (stepId: string, depth: number): string | undefined => {
    const line = byId.get(stepId);
    if (!line || depth > lines.length) return undefined;
    if (line.waitingFor === 'decision') return line.title;
    const behind = line.status === 'skipped' ? SKIPPED_BEHIND.exec(skipNote(stepId) ?? '') : null;
    return behind ? waitedOn(behind[1]!, depth + 1) : undefined;
  };
  return lines.map((line) => {
    const title = line.status === 'skipped' ? waitedOn(line.stepId, 0) : undefined;
    return title ? { ...line, status: 'pending', note: `on hold until someone decides about “${title}”` } : line;
  });
}

/** Steps whose last check could not be made (the evaluator model was down), from the run's events. */
export function uncheckedSteps(events: readonly RunEvent[]): Set<string> {
  const last = new Map<string, string>();
  for (const event of eventsOfType(events, 'step-evaluated')) last.set(`${event.data.planVersion}/${event.data.stepId}`, event.data.verdict);
  return new Set([...last].filter(([, verdict]) => verdict === 'uncertain').map(([key]) => key));
}

/** What reading a run's board from the store needs: its board source (one read) and the clock. */
export interface BoardReads {
  store: Pick<SummaryPort, 'boardSource'>;
  now(): Date;
}

/**
 * The run's board as the store has it (the caller's run row if it just read one); undefined for a run that
 * never started a step (a plan rejected or escalated before it ran is answered in the plan's own message).
 * The board draws the last version that ran; a newer one waiting for approval is named as what replaced it.
 * One statement: the run, its steps, that version and the run's check verdicts, not its whole event log.
 * Only the board writer (board-writer.ts) publishes it.
 */
export async function readBoard(ctx: BoardReads, runId: string, read?: RunRecord): Promise<{ run: RunRecord; board: BoardState } | undefined> {
  const source = await ctx.store.boardSource(runId);
  const run = read ?? source?.run;
  if (!source?.ran || !run?.currentPlanVersion) return undefined;
  const { ran, steps } = source;
  const replacedBy = run.currentPlanVersion > ran.version ? run.currentPlanVersion : null;
  const unchecked = uncheckedSteps(source.evaluations);
  return { run, board: buildBoard(run, ran.version, ran.plan, steps, ctx.now(), undefined, { replacedBy, unchecked }) };
}
