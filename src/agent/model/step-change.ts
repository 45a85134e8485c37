/**
 * Whether a step made its change: the one answer to "what changed" that the escalation ("Already changed"),
 * the rollback (which undo steps an Abort runs), and the summary (what changed, what is still in place) share.
 * A write's change is made once its call went through, whether or not its check passed afterwards: a comment
 * the evaluator judged wrong is posted, a dispatched deploy that concluded `failure` ran. A step that may or may
 * not have taken effect (`uncertain`) is not counted here: it is said as uncertain, and a person decides; one a person
 * skipped while it was uncertain still is (`skippedWhileUncertain`).
 */
import type { StepStatus } from './statuses.ts';
import { SKIPPED_BY_PERSON } from './step-codes.ts';

/** A step record as far as this needs it (the store's StepRecord has these fields). */
export interface ChangeFacts {
  risk: 'read' | 'write' | 'destructive';
  status: StepStatus;
  output: Record<string, unknown> | null;
  error: { url?: string | undefined; madeBefore?: EarlierChange | undefined; uncertain?: boolean | undefined; code?: string | undefined } | null;
}

/**
 * What an earlier attempt of a step made, kept on the step when a Retry's attempt failed before its own call went
 * through: the first attempt's change is still made, and still undone on an Abort (decision 053).
 */
export interface EarlierChange {
  attempt: number;
  url?: string | undefined;
}

/** A write or destructive step that succeeded, or whose call went through and then failed its check. */
export function madeItsChange(step: ChangeFacts): boolean {
  if (step.risk === 'read') return false;
  if (step.status === 'succeeded') return true;
  // Failed (or skipped by a person afterwards) after the call: the output is stored only once the call returned, and a
  // tool that fails after its effect names what it made by its address (a workflow run that concluded failure).
  return (step.status === 'failed' || step.status === 'skipped') && callWentThrough(step);
}

/**
 * A person skipped the step while it was uncertain: the run went on without knowing, and the step may or may not have
 * taken effect all the same. Its record says `skipped`; its error keeps `uncertain` (escalation-resolution.ts).
 */
export function skippedWhileUncertain(step: Pick<ChangeFacts, 'status' | 'error'>): boolean {
  return step.status === 'skipped' && step.error?.code === SKIPPED_BY_PERSON && step.error.uncertain === true;
}

/**
 * A person skipped the failed check of a write whose call went through: the result was accepted (the step counts as
 * succeeded, so what depends on it runs), the change stands, and its check did not pass. Said as a change with its
 * check skipped, never also as "not done".
 */
export function checkSkipped(step: Pick<ChangeFacts, 'risk' | 'status' | 'error'>): boolean {
  return step.risk !== 'read' && step.status === 'succeeded' && step.error?.code === SKIPPED_BY_PERSON;
}

/** The call reached its target and returned: its output was stored, or its error names what it (or an earlier attempt) made. */
export function callWentThrough(step: Pick<ChangeFacts, 'output' | 'error'>): boolean {
  return step.output !== null || typeof step.error?.url === 'string' || step.error?.madeBefore !== undefined;
}

/** The output a change is told by: the call's own, or the address of what it (or an earlier attempt) made. */
export function changeOutput(step: Pick<ChangeFacts, 'output' | 'error'>): Record<string, unknown> | null {
  if (step.output) return step.output;
  const url = step.error?.url ?? step.error?.madeBefore?.url;
  return url ? { url } : null;
}

/** The address of what a step made, when it has one. */
export function changeUrl(step: Pick<ChangeFacts, 'output' | 'error'>): string | null {
  const url = changeOutput(step)?.url;
  return typeof url === 'string' ? url : null;
}

/** A step's attempt as far as `attemptChanges` needs it (the store's StepAttemptRecord has these fields). */
export type AttemptFacts = { attempt: number } & Pick<ChangeFacts, 'output' | 'error'>;

/**
 * Every change a step's attempts made by their own call, oldest first: the one reading of the attempt rows that the
 * Retry's record (`madeBefore`), the summary's "What changed" and what an Abort leaves in place share. An attempt whose
 * call went through made something (its output was stored, or its error names it by its address); one that only
 * carried an earlier attempt's change (`madeBefore`) made nothing of its own. `attempts` are the step's, any order.
 */
export function attemptChanges(attempts: readonly AttemptFacts[]): EarlierChange[] {
  return attempts
    .filter((a) => a.output !== null || typeof a.error?.url === 'string')
    .sort((a, b) => a.attempt - b.attempt)
    .map((a) => {
      const url = changeUrl(a);
      return { attempt: a.attempt, ...(url ? { url } : {}) };
    });
}

/** The latest attempt before `before` whose own call made a change: kept on a Retry's attempt that failed before its call went through. */
export function earlierChange(attempts: readonly AttemptFacts[], before: number): EarlierChange | undefined {
  return attemptChanges(attempts.filter((a) => a.attempt < before)).at(-1);
}

/**
 * What earlier attempts of a step made elsewhere than what its record names (a first comment, then another on Retry):
 * each is still made, and no undo reaches it (an undo step is filled from the step's one output), so each is said.
 * Only changes told by an address count: without one, two attempts cannot be told apart from one change made twice.
 */
export function otherChanges(
  step: Pick<ChangeFacts, 'output' | 'error'> & { attempt: number },
  attempts: readonly AttemptFacts[],
): (EarlierChange & { url: string })[] {
  const last = changeUrl(step);
  const seen = new Set<string>();
  return attemptChanges(attempts.filter((a) => a.attempt < step.attempt)).flatMap((change) => {
    if (!change.url || change.url === last || seen.has(change.url)) return [];
    seen.add(change.url);
    return [{ ...change, url: change.url }];
  });
}
