/**
 * Closed states are values (issue 31, decision 041): every wait's state — owed, delivered, answered, expired,
 * cancelled — is derived by one function from what is stored (its row, the run, the run's events, its stored
 * message), for each of the four kinds.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/agent/model/run-events.ts';
import type { ConfirmationRecord, EscalationRecord, QuestionRecord, RunRecord, RunStatus } from '../../src/agent/ports/run-store.ts';
import type { WaitSubject } from '../../src/agent/waits/wait.ts';
import { EXPIRED_BY, isOpenState, stateOf, type WaitState } from '../../src/agent/waits/wait-state.ts';

const at = new Date('2026-11-27T10:00:00Z');
const run = (status: RunStatus, currentPlanVersion = 1): RunRecord => ({
  id: 'r1',
  task: 't',
  requester: 'UREQ',
  conversation: { channel: 'C1', threadTs: '1.0' },
  origin: 'mention',
  status,
  currentPlanVersion,
  replans: 0,
  boardRef: null,
  summary: null,
  createdAt: at,
  updatedAt: at,
  finishedAt: null,
});
let seq = 0;
const event = (type: string, data: Record<string, unknown>): RunEvent => ({ runId: 'r1', seq: ++seq, at, type, data }) as RunEvent;

const approval = (planVersion = 1): WaitSubject => ({ kind: 'approval', planVersion });
const question = (over: Partial<QuestionRecord> = {}): WaitSubject => ({
  kind: 'question',
  question: {
    id: 'q1',
    runId: 'r1',
    stepId: 's1',
    planVersion: 1,
    question: 'which?',
    answer: null,
    answeredBy: null,
    createdAt: at,
    answeredAt: null,
    ...over,
  },
});
const escalation = (over: Partial<EscalationRecord> = {}): WaitSubject => ({
  kind: 'escalation',
  escalation: {
    id: 'e1',
    runId: 'r1',
    planVersion: 1,
    stepId: 's1',
    kind: 'step-failed',
    message: 'it failed',
    status: 'open',
    createdAt: at,
    ...over,
  } as EscalationRecord,
});
const confirm = (over: Partial<ConfirmationRecord> = {}): WaitSubject => ({
  kind: 'confirm',
  confirmation: {
    runId: 'r1',
    planVersion: 1,
    stepId: 's1',
    tool: 'create_thing',
    risk: 'write',
    targets: {},
    lateBound: [],
    status: 'pending',
    decidedBy: null,
    createdAt: at,
    decidedAt: null,
    ...over,
  },
});

const cases: [string, WaitSubject, RunRecord, RunEvent[], WaitState][] = [
  // A plan's approval.
  ['a plan awaiting approval', approval(), run('awaiting-approval'), [], 'owed'],
  ['a plan approved that went on', approval(), run('executing'), [event('plan-approved', { version: 1, by: 'UAPP' })], 'answered'],
  [
    'a plan approved, replaced later by a replan',
    approval(1),
    run('awaiting-approval', 2),
    [event('plan-approved', { version: 1, by: 'UAPP' }), event('step-started', { planVersion: 1, stepId: 's1', kind: 'forward', attempt: 1, tool: 'x' })],
    'answered',
  ],
  ['a plan rejected', approval(), run('rejected'), [event('plan-rejected', { version: 1, by: 'UREQ' })], 'answered'],
  ['a plan nobody approved in time', approval(), run('rejected'), [event('plan-expired', { version: 1, afterMinutes: 1440 })], 'expired'],
  ['a plan replaced by an edit before anyone approved it', approval(1), run('awaiting-approval', 2), [], 'cancelled'],
  [
    'a plan partly approved, then replaced by an edit',
    approval(1),
    run('awaiting-approval', 2),
    [event('plan-approved', { version: 1, by: 'UAPP' })],
    'cancelled',
  ],
  ['a plan whose run was cancelled while it waited', approval(), run('cancelled'), [], 'cancelled'],
  // A question.
  ['an open question', question(), run('paused'), [], 'owed'],
  ['an answered question', question({ answer: 'main', answeredBy: 'UREQ' }), run('executing'), [], 'answered'],
  ['a question of a version replaced since', question(), run('executing', 2), [], 'cancelled'],
  ['a question of a run that ended', question(), run('cancelled'), [], 'cancelled'],
  // An escalation.
  ['an open escalation', escalation(), run('paused'), [], 'owed'],
  [
    'an escalation answered',
    escalation({ status: 'resolved' }),
    run('executing'),
    [event('escalation-resolved', { escalationId: 'e1', action: 'retry', by: 'UAPP' })],
    'answered',
  ],
  [
    'an escalation closed by the Abort of another',
    escalation({ status: 'resolved' }),
    run('aborted'),
    [event('escalation-resolved', { escalationId: 'e2', action: 'abort', by: 'UAPP' })],
    'cancelled',
  ],
  ['an escalation left open by a run that ended', escalation(), run('cancelled'), [], 'cancelled'],
  // A Confirm.
  ['a pending Confirm', confirm(), run('executing'), [], 'owed'],
  ['a Confirm of a rollback step while rolling back', confirm({ planVersion: 1 }), run('rolling-back', 2), [], 'owed'],
  ['a confirmed Confirm', confirm({ status: 'confirmed', decidedBy: 'UAPP' }), run('executing'), [], 'answered'],
  ['an aborted Confirm', confirm({ status: 'aborted', decidedBy: 'UAPP' }), run('aborted'), [], 'answered'],
  ['a Confirm nobody gave in time', confirm({ status: 'aborted', decidedBy: EXPIRED_BY }), run('aborted'), [], 'expired'],
  ['a pending Confirm of a version replaced since', confirm(), run('executing', 2), [], 'cancelled'],
  ['a pending Confirm of a run that was cancelled', confirm(), run('cancelled'), [], 'cancelled'],
];

describe('the state of a wait', () => {
  it.each(cases)('%s: %s', (_, subject, runRecord, events, state) => {
    expect(stateOf(subject, { run: runRecord, events, delivered: false })).toBe(state);
  });

  it('an open wait whose message was posted is delivered; a closed one stays closed whatever was posted', () => {
    for (const [, subject, runRecord, events, state] of cases) {
      const posted = stateOf(subject, { run: runRecord, events, delivered: true });
      expect(posted).toBe(isOpenState(state) ? 'delivered' : state);
    }
  });
});

const started = (planVersion: number) => event('step-started', { planVersion, stepId: 's1', kind: 'forward', attempt: 1, tool: 'x' });

/**
 * The state of a wait is judged by the facts of that wait only: events of another plan version or another
 * escalation, and what an older process stored, decide nothing about it (rows the mutation run of wait-state.ts
 * asked for; decision 027).
 */
const ownFacts: [string, WaitSubject, RunRecord, RunEvent[], WaitState][] = [
  [
    'v2 approved and running, while v1 expired',
    approval(2),
    run('executing', 2),
    [event('plan-expired', { version: 1, afterMinutes: 1440 }), event('plan-approved', { version: 2, by: 'UAPP' })],
    'answered',
  ],
  [
    'v2 replaced by v3 unapproved, while v1 was rejected',
    approval(2),
    run('awaiting-approval', 3),
    [event('plan-rejected', { version: 1, by: 'UREQ' })],
    'cancelled',
  ],
  [
    'v2 replaced by v3 unapproved, while v1 was approved and v2 started nothing',
    approval(2),
    run('awaiting-approval', 3),
    [event('plan-approved', { version: 1, by: 'UAPP' })],
    'cancelled',
  ],
  [
    'v1 approved, replaced by v2 whose steps started',
    approval(1),
    run('awaiting-approval', 2),
    [event('plan-approved', { version: 1, by: 'UAPP' }), started(2)],
    'cancelled',
  ],
  [
    'v1 approved, replaced by v2 running before any step of v1 started',
    approval(1),
    run('executing', 2),
    [event('plan-approved', { version: 1, by: 'UAPP' })],
    'cancelled',
  ],
  ['an escalation closed with no answer of its own and no other answer recorded', escalation({ status: 'resolved' }), run('aborted'), [], 'cancelled'],
  ['v2 running with only v1’s approval recorded', approval(2), run('executing', 2), [event('plan-approved', { version: 1, by: 'UAPP' })], 'cancelled'],
  // What processes stored as the decider of a Confirm nobody gave in time; a stored row must keep meaning it.
  ['a Confirm stored as expired by an older process', confirm({ status: 'aborted', decidedBy: 'tandem:expired' }), run('aborted'), [], 'expired'],
];

describe('the state of a wait, from its own facts', () => {
  it.each(ownFacts)('%s: %s', (_, subject, runRecord, events, state) => {
    expect(stateOf(subject, { run: runRecord, events, delivered: false })).toBe(state);
  });

  it('owed and delivered are the open states; the three ends are closed', () => {
    const states: WaitState[] = ['owed', 'delivered', 'answered', 'expired', 'cancelled'];
    expect(states.filter(isOpenState)).toEqual(['owed', 'delivered']);
  });
});
