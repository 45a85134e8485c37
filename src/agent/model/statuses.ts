/** Where a run and a step are in their lives: plain values every layer speaks of (the store's ports re-export them). */
export type RunStatus =
  | 'planning'
  | 'awaiting-approval'
  | 'awaiting-answer' // the plan asked the requester questions
  | 'executing'
  | 'paused' // an open escalation or ask_human question holds the run
  | 'rolling-back'
  | 'succeeded'
  | 'failed'
  | 'aborted'
  | 'cancelled'
  | 'rejected'
  | 'expired'; // a plan nobody approved within TANDEM_APPROVAL_TTL_S: nobody rejected it, and nothing ran

/** Every run status, in the order a run usually meets them. */
export const RUN_STATUSES: readonly RunStatus[] = [
  'planning',
  'awaiting-approval',
  'awaiting-answer',
  'executing',
  'paused',
  'rolling-back',
  'succeeded',
  'failed',
  'aborted',
  'cancelled',
  'rejected',
  'expired',
];

export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'aborted', 'cancelled', 'rejected', 'expired'];

export type StepStatus =
  | 'pending'
  | 'running'
  | 'waiting' // ask_human: paused until someone answers
  | 'succeeded'
  | 'failed'
  | 'skipped'
  | 'cancelled'
  | 'uncertain'; // a write that may have happened; a person decides
