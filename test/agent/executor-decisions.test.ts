import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextActions, settlement, type ExecutorAction, type ExecutorState, type StepView } from '../../src/agent/execution/execution-rules.ts';
import type { StepStatus } from '../../src/agent/ports/run-store.ts';
import { saying } from '../helpers/words.ts';

const T0 = new Date('2026-11-23T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const diamond = [
  { id: 'a', dependsOn: [] },
  { id: 'b', dependsOn: ['a'] },
  { id: 'c', dependsOn: ['a'] },
  { id: 'd', dependsOn: ['b', 'c'] },
];
const budgets = { maxSteps: 10, maxReplans: 1, runTimeoutS: 600, stepTimeoutS: 60, maxTokens: 1000 };

interface Row {
  name: string;
  statuses?: Record<string, StepStatus>;
  /** Running steps' leases, for steps another process claimed. */
  leases?: Record<string, Partial<StepView>>;
  state?: Partial<ExecutorState>;
  expected: ExecutorAction[];
}

function stateOf(row: Row): ExecutorState {
  const records = new Map(
    Object.entries(row.statuses ?? {}).map(([stepId, status]) => [stepId, { status, leaseOwner: null, leaseUntil: null, ...row.leases?.[stepId] }]),
  );
  return {
    steps: diamond,
    records,
    inFlight: new Set(),
    escalated: new Set(),
    replanning: null,
    stopping: false,
    attempts: 0,
    tokens: 0,
    tokensReadAt: T0,
    replans: 0,
    runStartedAt: T0,
    now: T0,
    budgets,
    concurrency: 8,
    owner: 'replica-a',
    soleOwner: false,
    ...row.state,
    replanAnswers: row.state?.replanAnswers ?? new Set(row.state?.replanning ? [row.state.replanning] : []),
  };
}

const start = (stepId: string): ExecutorAction => ({ kind: 'start', stepId });
const skip = (stepId: string, reason: string): ExecutorAction => ({ kind: 'skip', stepId, reason });
const wait: ExecutorAction = { kind: 'wait' };

const rows: Row[] = [
  { name: 'a fresh diamond starts its root', expected: [start('a'), wait] },
  { name: 'both middle steps start together once the root succeeded', statuses: { a: 'succeeded' }, expected: [start('b'), start('c'), wait] },
  {
    name: 'the join waits for both middle steps',
    statuses: { a: 'succeeded', b: 'succeeded', c: 'running' },
    state: { inFlight: new Set(['c']) },
    expected: [wait],
  },
  { name: 'the join starts when both succeeded', statuses: { a: 'succeeded', b: 'succeeded', c: 'succeeded' }, expected: [start('d'), wait] },
  {
    name: 'concurrency 1 starts one middle step',
    statuses: { a: 'succeeded' },
    state: { concurrency: 1 },
    expected: [start('b'), wait],
  },
  {
    name: 'a full concurrency limit starts nothing more',
    statuses: { a: 'succeeded', b: 'running' },
    state: { concurrency: 1, inFlight: new Set(['b']) },
    expected: [wait],
  },
  {
    name: 'a failure is handed over at once, while another step still runs',
    statuses: { a: 'succeeded', b: 'failed', c: 'running' },
    state: { inFlight: new Set(['c']) },
    expected: [skip('d', 'skipped: b failed'), { kind: 'hand-over', stepId: 'b' }],
  },
  {
    name: 'two failures at once are each handed over at once',
    statuses: { a: 'succeeded', b: 'failed', c: 'uncertain' },
    expected: [skip('d', 'skipped: b failed'), { kind: 'hand-over', stepId: 'b' }, { kind: 'hand-over', stepId: 'c' }],
  },
  {
    name: 'an escalated failure waits for its answer while the step beside it runs',
    statuses: { a: 'succeeded', b: 'failed', c: 'running', d: 'skipped' },
    state: { inFlight: new Set(['c']), escalated: new Set(['b']) },
    expected: [wait],
  },
  {
    name: 'a step beside an escalated failure starts',
    statuses: { a: 'succeeded', b: 'failed', d: 'skipped' },
    state: { escalated: new Set(['b']) },
    expected: [start('c'), wait],
  },
  {
    name: 'a retried step starts while the other escalation stays open',
    statuses: { a: 'succeeded', b: 'pending', c: 'failed', d: 'skipped' },
    state: { escalated: new Set(['b', 'c']) },
    expected: [start('b'), wait],
  },
  {
    name: 'only escalated failures left: the run pauses for people',
    statuses: { a: 'succeeded', b: 'failed', c: 'uncertain', d: 'skipped' },
    state: { escalated: new Set(['b', 'c']) },
    expected: [{ kind: 'settle', outcome: { status: 'paused' } }],
  },
  {
    name: 'a failure answered with a new plan stops new starts and waits for the running step',
    statuses: { a: 'succeeded', b: 'failed', c: 'running' },
    state: { inFlight: new Set(['c']), replanning: 'b' },
    expected: [skip('d', 'skipped: b failed'), wait],
  },
  {
    name: 'a failure answered with a new plan is replanned once nothing runs, with the later failures it answers',
    statuses: { a: 'succeeded', b: 'failed', c: 'failed', d: 'skipped' },
    state: { replanning: 'b', replanAnswers: new Set(['b', 'c']) },
    expected: [{ kind: 'settle', outcome: { status: 'replan', stepId: 'b' } }],
  },
  {
    // The supervisor decides: a failed read joins the new plan, a failure that needs a person calls the plan off.
    name: 'a failure that ends while a new plan waits is handed over, not folded into the plan unseen',
    statuses: { a: 'succeeded', b: 'failed', c: 'uncertain', d: 'skipped' },
    state: { replanning: 'b' },
    expected: [{ kind: 'hand-over', stepId: 'c' }],
  },
  {
    name: 'the dependants of a skipped step are skipped, and the run succeeds',
    statuses: { a: 'skipped' },
    expected: [
      skip('b', 'skipped: a was skipped'),
      skip('c', 'skipped: a was skipped'),
      skip('d', 'skipped: b was skipped'),
      { kind: 'settle', outcome: { status: 'succeeded' } },
    ],
  },
  {
    name: 'the step budget stops the run before another start',
    statuses: { a: 'succeeded' },
    state: { attempts: 20 },
    expected: [{ kind: 'stop', reason: saying(/step budget is spent after 20 step attempts/) as unknown as string }],
  },
  {
    name: 'no step starts past the attempt that spends the budget',
    statuses: { a: 'succeeded' },
    state: { attempts: 19 },
    expected: [start('b'), wait],
  },
  {
    name: 'the token budget stops the run',
    statuses: { a: 'succeeded' },
    state: { tokens: 1000 },
    expected: [{ kind: 'stop', reason: saying(/token budget is spent/) as unknown as string }],
  },
  {
    name: 'a stale token total is read before anything starts',
    statuses: { a: 'succeeded' },
    state: { tokensReadAt: null },
    expected: [{ kind: 'read-tokens' }],
  },
  {
    name: 'the wall clock stops a run even with nothing to start, cancelling its running step',
    statuses: { a: 'running' },
    state: { inFlight: new Set(['a']), now: at(600) },
    expected: [{ kind: 'stop', reason: saying(/longer than 600s/) as unknown as string }],
  },
  { name: 'a step waiting for a person pauses the run', statuses: { a: 'waiting' }, expected: [{ kind: 'settle', outcome: { status: 'paused' } }] },
  {
    name: 'everything done: the run succeeded',
    statuses: { a: 'succeeded', b: 'succeeded', c: 'succeeded', d: 'succeeded' },
    expected: [{ kind: 'settle', outcome: { status: 'succeeded' } }],
  },
  {
    // Its driver was halted (a shutdown out of time, a takeover): skipping its dependants would leave the run nothing to do.
    name: 'a step cancelled in a run that goes on is put back to run, before anything waits on it is skipped',
    statuses: { a: 'succeeded', b: 'cancelled', c: 'succeeded' },
    expected: [{ kind: 'requeue', stepId: 'b' }],
  },
  {
    name: "a peer's live step is waited for",
    statuses: { a: 'running' },
    leases: { a: { leaseOwner: 'replica-b', leaseUntil: at(30) } },
    expected: [{ kind: 'wait-foreign' }],
  },
  {
    name: "a step whose owner's lease ran out is recovered",
    statuses: { a: 'running' },
    leases: { a: { leaseOwner: 'replica-b', leaseUntil: at(-1) } },
    expected: [{ kind: 'recover-foreign' }],
  },
  {
    name: 'a step this replica left running before a restart is recovered',
    statuses: { a: 'running' },
    leases: { a: { leaseOwner: 'replica-a', leaseUntil: at(30) } },
    expected: [{ kind: 'recover-foreign' }],
  },
  {
    name: 'alone on the store, any running step nobody here runs is recovered',
    statuses: { a: 'running' },
    leases: { a: { leaseOwner: 'replica-b', leaseUntil: at(30) } },
    state: { soleOwner: true },
    expected: [{ kind: 'recover-foreign' }],
  },
  { name: 'a stopping driver starts nothing', statuses: { a: 'succeeded' }, state: { stopping: true }, expected: [{ kind: 'drain' }] },
  // Issue 37: rows that were missing.
  {
    name: 'a run with a step waiting for a person, after the others succeeded, pauses and does not succeed',
    statuses: { a: 'succeeded', b: 'succeeded', c: 'waiting' },
    expected: [{ kind: 'settle', outcome: { status: 'paused' } }],
  },
  {
    name: 'a step that failed before this driver looked (its driver died before telling anyone) is handed over, not settled as success',
    statuses: { a: 'succeeded', b: 'failed', c: 'succeeded' },
    expected: [skip('d', 'skipped: b failed'), { kind: 'hand-over', stepId: 'b' }],
  },
  {
    name: 'a token total read exactly 250 ms ago is fresh enough to start on',
    statuses: { a: 'succeeded' },
    state: { tokensReadAt: at(-0.25) },
    expected: [start('b'), start('c'), wait],
  },
  {
    name: 'a token total read 251 ms ago is read again before a step starts',
    statuses: { a: 'succeeded' },
    state: { tokensReadAt: at(-0.251) },
    expected: [{ kind: 'read-tokens' }],
  },
  {
    name: 'a stale token total is not read when nothing can start: the run settles',
    statuses: { a: 'succeeded', b: 'succeeded', c: 'succeeded', d: 'succeeded' },
    state: { tokensReadAt: null },
    expected: [{ kind: 'settle', outcome: { status: 'succeeded' } }],
  },
  {
    name: 'a spent token or step budget stops nothing that only runs: the running step is waited for',
    statuses: { a: 'succeeded', b: 'succeeded', c: 'running' },
    state: { inFlight: new Set(['c']), tokens: 1000, attempts: 20 },
    expected: [wait],
  },
  {
    name: 'the wall clock one second before its limit stops nothing',
    statuses: { a: 'running' },
    state: { inFlight: new Set(['a']), now: at(599) },
    expected: [wait],
  },
  {
    name: 'a step this driver started whose record still reads pending is not started again',
    state: { inFlight: new Set(['a']) },
    expected: [wait],
  },
  {
    name: 'a step cancelled while this driver still runs it is not put back: its driver is finishing it',
    statuses: { a: 'succeeded', b: 'cancelled', c: 'succeeded' },
    state: { inFlight: new Set(['b']) },
    expected: [skip('d', 'skipped: b cancelled'), wait],
  },
  {
    name: 'a concurrency of 0 is read as 1: the run still moves',
    statuses: { a: 'succeeded' },
    state: { concurrency: 0 },
    expected: [start('b'), wait],
  },
  {
    name: "a peer's lease that expires exactly now is expired: the step is recovered",
    statuses: { a: 'running' },
    leases: { a: { leaseOwner: 'replica-b', leaseUntil: at(0) } },
    expected: [{ kind: 'recover-foreign' }],
  },
  {
    name: 'a running step with no lease is recovered',
    statuses: { a: 'running' },
    leases: { a: { leaseOwner: 'replica-b', leaseUntil: null } },
    expected: [{ kind: 'recover-foreign' }],
  },
  {
    name: 'a dead and a live peer step: the dead one is recovered without waiting for the live one',
    statuses: { a: 'succeeded', b: 'running', c: 'running' },
    leases: { b: { leaseOwner: 'replica-b', leaseUntil: at(30) }, c: { leaseOwner: 'replica-c', leaseUntil: at(-1) } },
    expected: [{ kind: 'recover-foreign' }],
  },
  {
    name: 'two live peer steps are waited for',
    statuses: { a: 'succeeded', b: 'running', c: 'running' },
    leases: { b: { leaseOwner: 'replica-b', leaseUntil: at(30) }, c: { leaseOwner: 'replica-c', leaseUntil: at(1) } },
    expected: [{ kind: 'wait-foreign' }],
  },
  {
    name: 'a success that lets steps start is stored with their claims, in one write',
    statuses: { a: 'running' },
    state: { inFlight: new Set(['a']), finishing: new Set(['a']) },
    expected: [{ kind: 'finish-and-start', stepId: 'a', dependants: ['b', 'c'] }],
  },
  {
    name: 'a success frees its slot for a step that waited for it',
    statuses: { a: 'succeeded', b: 'running' },
    state: { concurrency: 1, inFlight: new Set(['b']), finishing: new Set(['b']) },
    expected: [{ kind: 'finish-and-start', stepId: 'b', dependants: ['c'] }],
  },
  {
    name: 'a success that starts nothing is stored alone',
    statuses: { a: 'succeeded', b: 'running', c: 'running' },
    state: { inFlight: new Set(['b', 'c']), finishing: new Set(['b']) },
    expected: [{ kind: 'finish', stepId: 'b' }],
  },
  {
    name: 'a success reads a stale token total before anything starts with it',
    statuses: { a: 'running' },
    state: { inFlight: new Set(['a']), finishing: new Set(['a']), tokensReadAt: null },
    expected: [{ kind: 'read-tokens' }],
  },
  {
    name: 'a success while the driver stops is stored, and starts nothing',
    statuses: { a: 'running' },
    state: { inFlight: new Set(['a']), finishing: new Set(['a']), stopping: true },
    expected: [{ kind: 'finish', stepId: 'a' }],
  },
  {
    name: 'a success beside a failure nobody was told of starts nothing: the hand-over comes first, on the next ask',
    statuses: { a: 'succeeded', b: 'failed', c: 'running' },
    state: { inFlight: new Set(['c']), finishing: new Set(['c']) },
    expected: [{ kind: 'finish', stepId: 'c' }],
  },
  {
    name: 'two successes waiting are stored one at a time, in plan order',
    statuses: { a: 'succeeded', b: 'running', c: 'running' },
    state: { inFlight: new Set(['b', 'c']), finishing: new Set(['c', 'b']) },
    expected: [{ kind: 'finish', stepId: 'b' }],
  },
];

describe('executor decisions', () => {
  it.each(rows)('$name', (row) => {
    expect(nextActions(stateOf(row))).toEqual(row.expected);
  });
});

describe('how a run ends as things stand', () => {
  const ending = (statuses: Record<string, StepStatus>, skipped: string[] = [], replanning: string | null = null) =>
    settlement({ steps: diamond, records: stateOf({ name: '', statuses, expected: [] }).records, replanning }, new Set(skipped)).status;

  it.each([
    ['every step succeeded', { a: 'succeeded', b: 'succeeded', c: 'succeeded', d: 'succeeded' }, [], null, 'succeeded'],
    ['the rest skipped', { a: 'succeeded', b: 'skipped' }, ['c', 'd'], null, 'succeeded'],
    ['a step never ran', { a: 'succeeded', b: 'succeeded', c: 'succeeded' }, [], null, 'none'],
    ['one step waits for a person', { a: 'succeeded', b: 'succeeded', c: 'succeeded', d: 'waiting' }, [], null, 'paused'],
    ['a step failed and waits for a person', { a: 'succeeded', b: 'failed' }, ['d'], null, 'paused'],
    ['a step failed and asked for a new plan', { a: 'succeeded', b: 'failed' }, [], 'b', 'replan'],
  ] as const)('%s', (_name, statuses, skipped, failed, expected) => {
    expect(ending(statuses, [...skipped], failed)).toBe(expected);
  });
});

const statusArb = fc.constantFrom<StepStatus>('pending', 'running', 'succeeded', 'failed', 'skipped', 'waiting', 'cancelled');

describe('executor decisions, for any state of the diamond', () => {
  it('start only steps whose dependencies succeeded, never past the concurrency limit, nothing before a failure is handed over, after a replan is asked for, or while stopping', () => {
    fc.assert(
      fc.property(
        fc.tuple(statusArb, statusArb, statusArb, statusArb),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (statuses, concurrency, stopping, replan, told) => {
          const byId = Object.fromEntries(diamond.map((step, i) => [step.id, statuses[i]!]));
          const inFlight = new Set(diamond.filter((step) => byId[step.id] === 'running').map((step) => step.id));
          const failed = diamond.filter((step) => byId[step.id] === 'failed').map((step) => step.id);
          const actions = nextActions(
            stateOf({
              name: '',
              statuses: byId,
              state: { inFlight, concurrency, stopping, replanning: replan ? (failed[0] ?? null) : null, escalated: new Set(told ? failed : []) },
              expected: [],
            }),
          );
          const handed = actions.filter((action) => action.kind === 'hand-over').map((action) => action.stepId);
          // Every failure nobody was told of is handed over, at once, but the one a new plan on its way answers (or the driver stops).
          const requeues = actions.some((action) => action.kind === 'requeue');
          if (!stopping && !requeues && !told) expect(handed).toEqual(replan ? failed.slice(1) : failed);
          else expect(handed).toEqual([]);
          const started = actions.filter((action) => action.kind === 'start').map((action) => action.stepId);
          for (const stepId of started) {
            expect(byId[stepId]).toBe('pending');
            for (const dep of diamond.find((step) => step.id === stepId)!.dependsOn) expect(byId[dep]).toBe('succeeded');
          }
          expect(inFlight.size + started.length).toBeLessThanOrEqual(Math.max(concurrency, inFlight.size));
          if ((replan && failed.length) || stopping || handed.length) expect(started).toEqual([]);
        },
      ),
    );
  });
});

describe('executor decisions while a success waits to be stored, for any state of the diamond', () => {
  it('say only how the first waiting success (in plan order) is stored, or that a token total is read first; what starts with it depends on it or on steps that succeeded', () => {
    fc.assert(
      fc.property(
        fc.tuple(statusArb, statusArb, statusArb, statusArb),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        (statuses, concurrency, stopping, stale) => {
          const byId = Object.fromEntries(diamond.map((step, i) => [step.id, statuses[i]!]));
          const inFlight = new Set(diamond.filter((step) => byId[step.id] === 'running').map((step) => step.id));
          const finishing = new Set([...inFlight].filter((_, i) => i % 2 === 0));
          const first = diamond.find((step) => finishing.has(step.id))?.id;
          const state = { inFlight, finishing, concurrency, stopping, tokensReadAt: stale ? null : T0 };
          const actions = nextActions(stateOf({ name: '', statuses: byId, state, expected: [] }));
          if (!first) {
            expect(actions.some((action) => action.kind === 'finish' || action.kind === 'finish-and-start')).toBe(false);
            return;
          }
          expect(actions).toHaveLength(1);
          const [action] = actions;
          if (action!.kind === 'read-tokens') {
            expect(stale && !stopping).toBe(true);
            return;
          }
          expect(action).toMatchObject({ stepId: first });
          const dependants = action!.kind === 'finish-and-start' ? action.dependants : [];
          if (stopping) expect(dependants).toEqual([]);
          expect(inFlight.size - 1 + dependants.length).toBeLessThanOrEqual(Math.max(concurrency, inFlight.size - 1));
          for (const stepId of dependants) {
            expect(byId[stepId]).toBe('pending');
            for (const dep of diamond.find((step) => step.id === stepId)!.dependsOn) expect(dep === first || byId[dep] === 'succeeded').toBe(true);
          }
        },
      ),
    );
  });
});
