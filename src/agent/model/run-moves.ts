/**
 * Which run status may move to which, and on what: one table. Every compare-and-set on a run's status
 * takes its "from" list from here (`movesFrom`), and the lists of open statuses are derived from it, so a
 * new status or move is added in one place and a test holds every move the store makes to the table.
 */
import { FINAL_RUN_STATUSES, RUN_STATUSES, type RunStatus } from './statuses.ts';

/** What moves a run; each has the statuses it may come from and the one it goes to (null: it stays where it is). */
export type RunMove =
  /** A plan version waits for its approval. */
  | 'propose'
  /** The plan's own questions wait for the requester. */
  | 'ask-requester'
  /** A version that needs no click starts (read-only auto-run, a pre-approved runbook). */
  | 'auto-approve'
  | 'approve'
  | 'reject'
  /** The requester answered the plan's questions: it is planned again. */
  | 'answer-plan-questions'
  /** An edit or a revision of the version waiting for approval. */
  | 'change-plan'
  /** A change of the plan (an edit, a revision) that could not be made: the version before stands. */
  | 'keep-plan'
  /** A new plan for the remaining work (a failed read step, a person's Replan, a failed replan tried again). */
  | 'replan'
  /** The replica planning the run died: another plans it again. */
  | 'plan-again'
  /** Nothing can go on until a person answers. */
  | 'pause'
  /** An answer let something go on. */
  | 'resume'
  /** An answer to an escalation about a step: the run stays as it is (it goes on, or stays paused). */
  | 'answer-step'
  /** Abort: what succeeded is undone. */
  | 'roll-back'
  /** Nobody approved the plan within TANDEM_APPROVAL_TTL_S: nothing ran, and nobody rejected it. */
  | 'expire'
  /** The run ends (succeeded, failed, aborted, cancelled, rejected). */
  | 'end';

/** Statuses a run has not ended in. */
const OPEN: readonly RunStatus[] = RUN_STATUSES.filter((status) => !FINAL_RUN_STATUSES.includes(status));

const MOVES: Readonly<Record<RunMove, { from: readonly RunStatus[]; to: RunStatus | 'final' | null }>> = {
  propose: { from: ['planning'], to: 'awaiting-approval' },
  'ask-requester': { from: ['planning'], to: 'awaiting-answer' },
  'auto-approve': { from: ['planning'], to: 'executing' },
  approve: { from: ['awaiting-approval'], to: 'executing' },
  reject: { from: ['awaiting-approval'], to: 'rejected' },
  'answer-plan-questions': { from: ['awaiting-answer'], to: 'planning' },
  'change-plan': { from: ['awaiting-approval'], to: 'planning' },
  'keep-plan': { from: ['planning'], to: 'awaiting-approval' },
  replan: { from: ['executing', 'paused', 'awaiting-approval'], to: 'planning' },
  'plan-again': { from: ['planning'], to: 'planning' },
  pause: { from: ['executing', 'planning'], to: 'paused' },
  resume: { from: ['paused'], to: 'executing' },
  'answer-step': { from: ['paused', 'executing', 'awaiting-approval'], to: null },
  'roll-back': { from: ['executing', 'paused', 'awaiting-approval', 'awaiting-answer', 'planning'], to: 'rolling-back' },
  expire: { from: ['awaiting-approval'], to: 'expired' },
  end: { from: OPEN, to: 'final' },
};

/** Whether a run in `from` may make this move. */
export function canMove(from: RunStatus, move: RunMove): boolean {
  return MOVES[move].from.includes(from);
}

/** The statuses a move may start from: the "from" of its compare-and-set. */
export function movesFrom(move: RunMove): readonly RunStatus[] {
  return MOVES[move].from;
}

/** Whether some move takes a run from `from` to `to` (a status that stays the same is no move). */
export function isKnownMove(from: RunStatus, to: RunStatus): boolean {
  if (from === to) return true;
  return Object.values(MOVES).some((move) => move.from.includes(from) && (move.to === to || (move.to === 'final' && ENDS.includes(to))));
}

/** Where `end` may take a run: every final status but `expired`, which only its own move reaches. */
const ENDS: readonly RunStatus[] = FINAL_RUN_STATUSES.filter((status) => status !== 'expired');

/** Statuses a run has not ended in (every move but `end` starts from one of them). */
export const OPEN_RUN_STATUSES: readonly RunStatus[] = OPEN;

/** Open statuses in which a run may wait for a person (every open one but planning). */
export const WAITING_RUN_STATUSES: readonly RunStatus[] = OPEN.filter((status) => status !== 'planning');
