/**
 * The state of a wait is judged by the facts of that wait only: events of another plan version or another
 * escalation, and what an older process stored, decide nothing about it (rows the mutation run of wait-state.ts
 * asked for; decision 027).
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/agent/model/run-events.ts';
import type { ConfirmationRecord, EscalationRecord, RunRecord, RunStatus } from '../../src/agent/ports/run-store.ts';
import type { WaitSubject } from '../../src/agent/waits/wait.ts';
import { isOpenState, stateOf, type WaitState } from '../../src/agent/waits/wait-state.ts';

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

const started = (planVersion: number) => event('step-started', { planVersion, stepId: 's1', kind: 'forward', attempt: 1, tool: 'x' });

const cases: [string, WaitSubject, RunRecord, RunEvent[], WaitState][] = [
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
  it.each(cases)('%s: %s', (_, subject, runRecord, events, state) => {
    expect(stateOf(subject, { run: runRecord, events, delivered: false })).toBe(state);
  });

  it('owed and delivered are the open states; the three ends are closed', () => {
    const states: WaitState[] = ['owed', 'delivered', 'answered', 'expired', 'cancelled'];
    expect(states.filter(isOpenState)).toEqual(['owed', 'delivered']);
  });
});
