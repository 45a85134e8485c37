import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createRunStore, createSlackInbox, expireLeasesOfDeadOwners } from '../../src/store/index.ts';
import { outbox } from '../../src/store/schema/delivery-tables.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe.each(ENGINES)('the inbox and the outbox on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(() => database.destroy());

  it('stores a request once: a redelivery, even in the same burst, is told it is not new', async () => {
    const inbox = createSlackInbox(database.db, { owner: 'A', soleOwner: false });
    const answers = await Promise.all([
      inbox.record({ key: 'event:E1', body: { n: 1 } }),
      inbox.record({ key: 'event:E1', body: { n: 1 } }),
      inbox.record({ key: 'event:E2', body: { n: 2 } }),
    ]);
    expect(answers).toEqual([true, false, true]);
    expect(await inbox.record({ key: 'event:E1', body: { n: 1 } })).toBe(false);
  });

  it('stores a burst of requests each once with its body as sent (quotes, backslashes, accents); a redelivery later in the burst is told it is not new', async () => {
    const inbox = createSlackInbox(database.db, { owner: 'burst', soleOwner: false });
    const keys = Array.from({ length: 45 }, (_, i) => `action:burst-${i}`);
    const bodies = keys.map((key, i) => ({
      type: 'block_actions',
      trigger_id: key,
      message: { text: `plan ${i}`, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'é "quoted" \\ back' } }] },
    }));
    // The redelivery of the first request arrives well after it, among the last of the burst.
    const sent = [...keys.map((key, i) => ({ key, body: bodies[i]! })), { key: keys[0]!, body: bodies[0]! }];
    const answers = await Promise.all(sent.map((entry) => inbox.record(entry)));
    expect(answers).toEqual([...keys.map(() => true), false]);
    const stored = await createSlackInbox(database.db, { owner: 'reader', soleOwner: true }).claimUnfinished();
    const mine = new Map(stored.filter((entry) => keys.includes(entry.key)).map((entry) => [entry.key, entry.body]));
    expect(keys.map((key) => mine.get(key))).toEqual(bodies);
  });

  it('marks every request of a burst handled, even when they finish at the same moment: none is handled again', async () => {
    const inbox = createSlackInbox(database.db, { owner: 'A', soleOwner: false });
    const keys = ['action:B1', 'action:B2', 'action:B3'];
    await Promise.all(keys.map((key) => inbox.record({ key, body: { type: 'block_actions' } })));
    await Promise.all([...keys, 'action:B2'].map((key) => inbox.done(key)));
    const next = createSlackInbox(database.db, { owner: 'Z', soleOwner: true });
    expect((await next.claimUnfinished()).map((e) => e.key).filter((key) => keys.includes(key))).toEqual([]);
  });

  it('leaves a request to the replica handling it, and gives one left by a dead replica to the next, once', async () => {
    const a = createSlackInbox(database.db, { owner: 'A', soleOwner: false });
    const b = createSlackInbox(database.db, { owner: 'B', soleOwner: false });
    await a.record({ key: 'action:T1', body: { type: 'block_actions' } });
    expect((await b.claimUnfinished()).map((e) => e.key)).not.toContain('action:T1');
    expect(await expireLeasesOfDeadOwners(database.db, (owner) => owner === 'A')).toEqual(['A']);
    const [taken, again] = await Promise.all([b.claimUnfinished(), createSlackInbox(database.db, { owner: 'C', soleOwner: false }).claimUnfinished()]);
    expect([...taken, ...again].filter((e) => e.key === 'action:T1')).toHaveLength(1);
    await b.done('action:T1');
    expect((await createSlackInbox(database.db, { owner: 'D', soleOwner: true }).claimUnfinished()).map((e) => e.key)).not.toContain('action:T1');
  });

  it('ends a run in one write with the summary it owes, once; the owed message is delivered by one claimer', async () => {
    const store = createRunStore(database.db);
    const run = await store.createRun({ task: 't', requester: 'U1', conversation: { channel: 'C1', threadTs: '1.1' }, origin: 'mention' });
    const finish = () =>
      store.finishRun({
        runId: run.id,
        from: ['planning'],
        status: 'failed',
        summary: { outcome: 'failed' },
        finishedAt: new Date(),
        event: { type: 'run-finished', data: { outcome: 'failed', reason: null } },
        owe: [{ id: `${run.id}/run-finished`, kind: 'run-finished', payload: {} }],
        owner: 'A',
        leaseMs: 30_000,
      });
    const [first, second] = await Promise.all([finish(), finish()]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const ended = await store.getRun(run.id);
    expect(ended?.status).toBe('failed');
    expect(ended?.finishedAt).not.toBeNull();
    expect((await store.listEvents(run.id)).filter((e) => e.type === 'run-finished')).toHaveLength(1);

    // The writer holds it; a peer's sweep does not take it until the writer is gone.
    expect(await store.claimOwed({ owner: 'B', leaseMs: 30_000, all: false, limit: 10 })).toEqual([]);
    await expireLeasesOfDeadOwners(database.db, (owner) => owner === 'A');
    const [b, c] = await Promise.all([
      store.claimOwed({ owner: 'B', leaseMs: 30_000, all: false, limit: 10 }),
      store.claimOwed({ owner: 'C', leaseMs: 30_000, all: false, limit: 10 }),
    ]);
    const claimed = [...b, ...c].filter((m) => m.runId === run.id);
    expect(claimed.map((m) => m.attempts)).toEqual([1]);
    await store.markOwedSent(claimed[0]!.id);
    expect(await store.claimOwed({ owner: 'D', leaseMs: 30_000, all: true, limit: 10 })).toEqual([]);
  });
});

describe.runIf(ENGINES.includes('postgres'))('a run claiming its own owed messages on postgres', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase('postgres');
  });
  afterAll(() => database.destroy());

  // An escalation owed while the run's question was being posted was claimed by a second delivery, put off behind the
  // question (a write that locks its row), and the question's delivery then asked for the run's messages again at once:
  // that claim skipped the locked row, so the escalation waited out the retry (5 s and a sweep) instead of following.
  it('waits for a write holding a message of the run instead of passing over it', async () => {
    const store = createRunStore(database.db);
    const run = await store.createRun({ task: 't', requester: 'U1', conversation: { channel: 'C1', threadTs: '2.1' }, origin: 'mention' });
    const id = `${run.id}/escalation/e1`;
    await store.owe({ runId: run.id, owe: [{ id, kind: 'escalation', payload: {} }], owner: 'A', leaseMs: 30_000 });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    const deferral = database.db.transaction(async (tx) => {
      await tx.select().from(outbox).where(eq(outbox.id, id)).for('update');
      locked();
      await released;
    });
    await lockHeld;
    const claim = store.claimOwed({ owner: 'A', leaseMs: 30_000, all: false, runId: run.id, limit: 20 });
    setTimeout(release, 200);
    await deferral;
    expect((await claim).map((message) => message.id)).toEqual([id]);
  });
});
