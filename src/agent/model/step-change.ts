/**
 * Whether a step made its change: the one answer to "what changed" that the escalation ("Already changed"),
 * the rollback (which undo steps an Abort runs), and the summary (what changed, what is still in place) share.
 * A write's change is made once its call went through, whether or not its check passed afterwards: a comment
 * the evaluator judged wrong is posted, a dispatched deploy that concluded `failure` ran. A step that may or may
 * not have taken effect (`uncertain`) is not counted here: it is said as uncertain, and a person decides.
 */
import type { StepStatus } from './statuses.ts';

/** A step record as far as this needs it (the store's StepRecord has these fields). */
export interface ChangeFacts {
  risk: 'read' | 'write' | 'destructive';
  status: StepStatus;
  output: Record<string, unknown> | null;
  error: { url?: string | undefined } | null;
}

/** A write or destructive step that succeeded, or whose call went through and then failed its check. */
export function madeItsChange(step: ChangeFacts): boolean {
  if (step.risk === 'read') return false;
  if (step.status === 'succeeded') return true;
  // Failed (or skipped by a person afterwards) after the call: the output is stored only once the call returned, and a
  // tool that fails after its effect names what it made by its address (a workflow run that concluded failure).
  return (step.status === 'failed' || step.status === 'skipped') && callWentThrough(step);
}

/** The call reached its target and returned: its output was stored, or its error names what it made. */
export function callWentThrough(step: Pick<ChangeFacts, 'output' | 'error'>): boolean {
  return step.output !== null || typeof step.error?.url === 'string';
}
