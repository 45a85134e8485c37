/**
 * Every event type in the union, written through the store and read back, on both engines. The samples
 * are typed by the union itself: a new event type without a sample here does not compile, and one whose
 * payload the store cannot keep (a Text reason, a nested record) fails below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { RUN_EVENT_TYPES, type RunEventArgs, type RunEventData, type RunEventInput, type RunEventType } from '../../src/agent/model/run-events.ts';
import { person, words } from '../../src/agent/text/text.ts';
import { createRunStore } from '../../src/store/index.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

const step = { runId: 'run_x', planVersion: 2, stepId: 's3' };
const error = { message: 'GitHub answered 502', transient: true, code: 'upstream' };
const ended = { ...step, kind: 'forward' as const, attempt: 1, error };

const samples: { [T in RunEventType]: RunEventData<T> } = {
  'run-created': { task: 'cut v2.4.0', requester: 'U1', origin: 'mention' },
  'run-adopted': { by: 'replica-2', status: 'executing' },
  'run-paused': { reason: 'waiting for a person' },
  'run-resumed': {},
  'run-cancel-requested': { by: 'U2' },
  'run-finished': { outcome: 'aborted', reason: words`Aborted by ${person('U2')}. Rolled back: undo s1 (succeeded).` },
  'plan-proposed': { version: 2, authorKind: 'human', authorId: 'U2', reason: words`edited by ${person('U2')}` },
  'planner-fallback': { planVersion: 2, author: 'anthropic:claude', reason: 'the planner answer was invalid' },
  'questions-asked': { version: 1, questions: ['Which repo?', 'Which tag?'] },
  'question-answered': { questionId: 'q_1', stepId: null, by: 'U1' },
  'plan-approved': { version: 2, by: 'U3', via: 'escalation', escalationId: 'esc_1', action: 'retry' },
  'plan-rejected': { version: 1, by: 'U1' },
  'plan-edit-started': { version: 1, by: 'U2' },
  'revision-requested': { version: 1, by: 'U2', instruction: 'skip the release notes' },
  'plan-expired': { version: 1, afterMinutes: 1440 },
  'replan-started': { reason: words`${person('U3')} asked for a new plan after: s2 failed` },
  'rollback-started': { steps: ['r2', 'r1'] },
  'step-started': { ...step, kind: 'rollback', attempt: 2, tool: 'github_delete_release' },
  'step-retried': { ...step, retry: 1, delayMs: 500, error },
  'step-evaluated': { ...step, verdict: 'uncertain', reason: 'the output does not name a tag', by: 'model' },
  'step-succeeded': { ...step, kind: 'forward', attempt: 1 },
  'step-failed': ended,
  'step-uncertain': { ...ended, error: { message: 'timed out', uncertain: true } },
  'step-cancelled': { ...step, kind: 'forward' },
  'step-waiting': { ...step, kind: 'forward', attempt: 1 },
  'step-skipped': { planVersion: 2, stepId: 's4', reason: 'skipped: s3 failed' },
  'step-reconciled': { ...step, attempt: 1, found: 'done' },
  'step-requeued': { ...step, attempt: 1, why: 'its replica stopped before it started the tool' },
  'agent-call': { planVersion: 2, stepId: 's3', attempt: 1, index: 0, tool: 'github_get_pull', args: { number: 7 }, ok: true, output: { state: 'open' } },
  'agent-call-retried': { planVersion: 2, stepId: 's3', attempt: 1, index: 1, retry: 1, delayMs: 250, error },
  'confirmation-requested': { planVersion: 2, stepId: 's5', targets: { repo: 'acme/api', number: 666 }, lateBound: ['number'] },
  'target-confirmed': {
    planVersion: 2,
    stepId: 's5',
    by: 'U3',
    targets: { repo: 'acme/api', number: 666 },
    policy: { hash: 'a'.repeat(64), rules: ['approvers'], groups: ['S1'] },
  },
  'target-aborted': { planVersion: 2, stepId: 's5', by: 'U1', targets: { repo: 'acme/api', number: 666 } },
  'escalation-opened': { escalationId: 'esc_1', kind: 'step-failed', stepId: 's3', message: words`s3 failed; ${person('U9')} was pinged` },
  'escalation-resolved': { escalationId: 'esc_1', action: 'skip', by: 'U3' },
  'wait-reassigned': { wait: 'escalation', key: 'esc_1', to: 'U4', from: null, by: 'U3' },
};

describe.each(ENGINES)('every run event type through the store (%s)', (engine) => {
  let database: TestDatabase;
  let store: RunStore;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    store = createRunStore(database.db);
  });
  afterAll(() => database.destroy());

  it('each type, appended one by one and in a batch, reads back as itself with the payload it was given', async () => {
    const inputs = RUN_EVENT_TYPES.map((type) => ({ type, data: samples[type] }) as RunEventInput);
    expect(inputs.map((input) => input.type).sort()).toEqual(Object.keys(samples).sort());

    const single = await store.createRun({ task: 't', requester: 'U1', conversation: { channel: 'C1', threadTs: '1.1' }, origin: 'cli' });
    for (const input of inputs) await store.appendEvent(single.id, ...([input.type, input.data] as RunEventArgs));
    const batched = await store.createRun({ task: 't', requester: 'U1', conversation: { channel: 'C1', threadTs: '1.2' }, origin: 'cli' });
    await store.appendEvents(batched.id, inputs);

    for (const runId of [single.id, batched.id]) {
      const read = await store.listEvents(runId);
      expect(read.map((event) => ({ type: event.type, data: event.data }))).toEqual(inputs);
    }
  });
});
