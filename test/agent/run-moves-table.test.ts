/**
 * The run-status table (model/run-moves.ts) written out whole, so a changed cell fails here: for each move
 * the statuses it may start from, every status × move asked of `canMove`, and for each status every status
 * a run may go to next (`isKnownMove`, which the store's move hook checks every status change against).
 */
import { describe, expect, it } from 'vitest';
import { canMove, isKnownMove, movesFrom, OPEN_RUN_STATUSES, WAITING_RUN_STATUSES, type RunMove } from '../../src/agent/model/run-moves.ts';
import { RUN_STATUSES, type RunStatus } from '../../src/agent/model/statuses.ts';

const OPEN: RunStatus[] = ['planning', 'awaiting-approval', 'awaiting-answer', 'executing', 'paused', 'rolling-back'];
/** Where `end` takes a run; `expired` only a plan waiting for approval reaches (`expire`). */
const ENDS: RunStatus[] = ['succeeded', 'failed', 'aborted', 'cancelled', 'rejected'];
const FINAL: RunStatus[] = [...ENDS, 'expired'];

/** Each move and the statuses a run may make it from, in the table's order. */
const FROM: [RunMove, RunStatus[]][] = [
  ['propose', ['planning']],
  ['ask-requester', ['planning']],
  ['auto-approve', ['planning']],
  ['approve', ['awaiting-approval']],
  ['reject', ['awaiting-approval']],
  ['answer-plan-questions', ['awaiting-answer']],
  ['change-plan', ['awaiting-approval']],
  ['keep-plan', ['planning']],
  ['replan', ['executing', 'paused', 'awaiting-approval']],
  ['plan-again', ['planning']],
  ['pause', ['executing', 'planning']],
  ['resume', ['paused']],
  ['answer-step', ['paused', 'executing', 'awaiting-approval']],
  ['roll-back', ['executing', 'paused', 'awaiting-approval', 'awaiting-answer', 'planning']],
  ['expire', ['awaiting-approval']],
  ['end', OPEN],
];

describe('where each move may start', () => {
  it.each(FROM)('%s starts from %j', (move, from) => {
    expect(movesFrom(move)).toEqual(from);
  });

  it.each(FROM.flatMap(([move, from]) => RUN_STATUSES.map((status) => [status, move, from.includes(status)] as const)))(
    'a run %s may %s: %s',
    (status, move, allowed) => {
      expect(canMove(status, move)).toBe(allowed);
    },
  );
});

/** For each status, every status a run in it may be found in next (itself included: no move). */
const NEXT: [RunStatus, RunStatus[]][] = [
  // propose / keep-plan, ask-requester, auto-approve, plan-again, pause, roll-back, end.
  ['planning', [...OPEN, ...ENDS]],
  // approve, change-plan / replan, roll-back, reject and every other end, expire; answer-step stays.
  ['awaiting-approval', ['planning', 'awaiting-approval', 'executing', 'rolling-back', ...FINAL]],
  // answer-plan-questions, roll-back, end.
  ['awaiting-answer', ['planning', 'awaiting-answer', 'rolling-back', ...ENDS]],
  // replan, pause, roll-back, end; answer-step stays.
  ['executing', ['planning', 'executing', 'paused', 'rolling-back', ...ENDS]],
  // replan, resume, roll-back, end; answer-step stays.
  ['paused', ['planning', 'executing', 'paused', 'rolling-back', ...ENDS]],
  // A rollback only ends.
  ['rolling-back', ['rolling-back', ...ENDS]],
  // A run that ended never moves again.
  ...FINAL.map((status): [RunStatus, RunStatus[]] => [status, [status]]),
];

describe('where a run may go next', () => {
  it.each(NEXT.flatMap(([from, next]) => RUN_STATUSES.map((to) => [from, to, next.includes(to)] as const)))('%s → %s: %s', (from, to, known) => {
    expect(isKnownMove(from, to)).toBe(known);
  });
});

describe('the lists derived from the table', () => {
  it('open: every status a run has not ended in, in the order a run meets them', () => {
    expect(OPEN_RUN_STATUSES).toEqual(OPEN);
  });

  it('waiting for a person: every open status but planning', () => {
    expect(WAITING_RUN_STATUSES).toEqual(['awaiting-approval', 'awaiting-answer', 'executing', 'paused', 'rolling-back']);
  });
});
