import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createRunStore, createSlackInbox } from '../../src/store/index.ts';
import { storableJson, storableText } from '../../src/agent/text/storable-text.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

// Characters PostgreSQL refuses: NUL anywhere, a lone surrogate in jsonb.
const NUL = '\u0000';
const LONE_HIGH = '\uD83D';
const LONE_LOW = '\uDE00';
const hostile = `a${NUL}b ${LONE_HIGH}x ${LONE_LOW} 😀 \\u0000 kept`;
const stored = 'a\uFFFDb \uFFFDx \uFFFD 😀 \\u0000 kept';

describe('storable text', () => {
  it('replaces only NUL and lone surrogates; a whole emoji and a written backslash-u stay', () => {
    expect(storableText(hostile)).toBe(stored);
    expect(JSON.parse(storableJson({ [`k${NUL}`]: [hostile, 1, null] }))).toEqual({ 'k\uFFFD': [stored, 1, null] });
  });

  it('is the JSON of the value itself whenever nothing needs replacing, and JSON PostgreSQL takes otherwise', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        const json = storableJson({ value, text });
        expect(json).not.toMatch(/(?<!\\)(\\\\)*\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
        expect(JSON.parse(json)).toEqual({ value: JSON.parse(storableJson(value)), text: storableText(text) });
        if (JSON.stringify(value) === storableJson(value)) expect(storableJson(value)).toBe(JSON.stringify(value));
      }),
    );
  });
});

describe.each(ENGINES)('text PostgreSQL refuses, stored on %s', (engine) => {
  let database: TestDatabase;
  let store: RunStore;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    store = createRunStore(database.db);
  });
  afterAll(() => database.destroy());

  it('stores a Slack request whose text holds NUL and lone surrogates, so it can be acknowledged', async () => {
    const inbox = createSlackInbox(database.db, { owner: 'A', soleOwner: true });
    expect(await inbox.record({ key: 'event:NUL', body: { event: { text: hostile } } })).toBe(true);
    const reader = createSlackInbox(database.db, { owner: 'reader', soleOwner: true });
    const [entry] = (await reader.claimUnfinished()).filter((row) => row.key === 'event:NUL');
    expect(entry?.body).toEqual({ event: { text: stored } });
  });

  it("stores a run's task, a step's output and an answer that hold them", async () => {
    const run = await store.createRun({ task: `check ${hostile}`, requester: 'U1', conversation: { channel: 'C1', threadTs: '1.1' }, origin: 'mention' });
    const plan = {
      schemaVersion: 1 as const,
      goal: hostile,
      confidence: 0.9,
      steps: [{ id: 's1', title: hostile, tool: 'llm_task', args: { instruction: hostile }, dependsOn: [] }],
      rollback: [],
    };
    const version = await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    await store.createSteps(run.id, version.version, [
      { stepId: 's1', kind: 'forward', title: hostile, tool: 'llm_task', risk: 'read', dependsOn: [], plannedArgs: { instruction: hostile } },
    ]);
    await store.updateRun(run.id, { currentPlanVersion: version.version, status: 'executing' });
    await store.recordApproval({ runId: run.id, planVersion: version.version, userId: 'U2', decision: 'approved', need: 'approver' });
    const claimed = await store.claimStep({
      runId: run.id,
      planVersion: version.version,
      stepId: 's1',
      owner: 'me',
      leaseMs: 30_000,
      executedArgs: { instruction: hostile },
    });
    expect(claimed).toBeDefined();
    const finished = await store.finishStep({
      runId: run.id,
      planVersion: version.version,
      stepId: 's1',
      attempt: claimed!.attempt,
      status: 'succeeded',
      output: { text: hostile },
    });
    expect(finished).toBe(true);
    const [step] = await store.listSteps(run.id, version.version);
    expect(step).toMatchObject({ title: stored, status: 'succeeded', output: { text: stored } });
    expect((await store.getRun(run.id))?.task).toBe(`check ${stored}`);

    await store.openQuestion({ runId: run.id, stepId: 's1', planVersion: version.version, question: hostile });
    expect(await store.answerQuestion({ runId: run.id, answer: hostile, userId: 'U1' })).toMatchObject({ answer: stored, question: stored });
  });
});
