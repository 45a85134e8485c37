/**
 * Parallel waits on two replicas sharing one PostgreSQL database: both failures are escalated before anyone
 * answers, and an answer taken on either replica moves only its own step while the other escalation stays open.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createRunStore } from '../../src/store/index.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { fakeTool } from '../agent/support/fake-tools.ts';
import { startReplica, until, type Replica } from './support/replica.ts';
import { auditViolations } from '../audit/support.ts';

const plan: Plan = {
  schemaVersion: 1,
  goal: 'Deploy two apps',
  confidence: 0.9,
  steps: [
    { id: 'd1', title: 'Deploy app one', tool: 'deploy', args: { key: 'one' }, dependsOn: [] },
    { id: 'd2', title: 'Deploy app two', tool: 'deploy', args: { key: 'two' }, dependsOn: [] },
    { id: 'n1', title: 'Note app one', tool: 'note', args: { key: 'one' }, dependsOn: ['d1'] },
  ],
  rollback: [],
};

/** The world outside, shared by both replicas: each deploy concludes `failure` on its first call only. */
function world() {
  const tries = new Map<string, number>();
  const tools = () => [
    fakeTool({
      name: 'deploy',
      risk: 'write',
      run: (args) => {
        const key = String(args.key);
        tries.set(key, (tries.get(key) ?? 0) + 1);
        return tries.get(key) === 1
          ? { status: 'error', error: { message: `the deploy of ${key} concluded failure` } }
          : { status: 'ok', output: { deployed: key } };
      },
    }),
    fakeTool({ name: 'note', risk: 'read' }),
  ];
  return { tries, tools };
}

const FAST = { leaseMs: 2_000, heartbeatMs: 200, adoptEveryMs: 100, refreshMs: 100 };

if (!process.env.TEST_DATABASE_URL) console.log('test/replicas/parallel-waits.test.ts skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');

describe.runIf(process.env.TEST_DATABASE_URL)('parallel waits on two replicas', () => {
  let database: TestDatabase;
  let store: RunStore;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    store = createRunStore(database.db);
  });
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((r) => r.close()));
  });
  afterAll(() => database.destroy());

  it('each failure is escalated at once; a Retry on the other replica re-runs only its step while the second stays open', async () => {
    const outside = world();
    const start = async (owner: string) => {
      const replica = await startReplica({ url: database.url!, owner, tools: outside.tools(), plan, replicas: FAST });
      replicas.push(replica);
      await replica.agent.resume();
      return replica;
    };
    const [a, b] = [await start('replica-a'), await start('replica-b')];
    const run = await a.propose('deploy both');
    await a.approve(run.id);
    const open = async () => (await store.listEscalations(run.id)).filter((e) => e.status === 'open');
    await until(async () => (await open()).length === 2, 'two escalations');
    const [first, second] = (await open()).sort((x, y) => x.stepId!.localeCompare(y.stepId!));
    expect([first!.stepId, second!.stepId]).toEqual(['d1', 'd2']);

    // Answered on B, whichever replica drives the run.
    expect((await b.agent.resolveEscalation({ escalationId: first!.id, userId: 'UAPP', action: 'retry' })).ok).toBe(true);
    const statusOf = async (stepId: string) => (await store.listSteps(run.id, 1)).find((s) => s.stepId === stepId)?.status;
    await until(async () => (await statusOf('n1')) === 'succeeded', 'the retried deploy and its note');
    await until(async () => (await store.getRun(run.id))?.status === 'paused', 'the run to wait for the second answer');
    expect(outside.tries.get('one')).toBe(2);
    expect(outside.tries.get('two')).toBe(1);
    expect(await statusOf('d2')).toBe('failed');
    expect((await open()).map((e) => e.id)).toEqual([second!.id]);

    expect((await a.agent.resolveEscalation({ escalationId: second!.id, userId: 'UAPP', action: 'retry' })).ok).toBe(true);
    await until(async () => (await store.getRun(run.id))?.status === 'succeeded', 'the run to succeed');
    await Promise.all([a.agent.idle(), b.agent.idle()]);
    expect(outside.tries.get('two')).toBe(2);
    // Each escalation was posted once, by one replica.
    expect([...a.surface.of(run.id, 'escalation'), ...b.surface.of(run.id, 'escalation')]).toHaveLength(2);
    expect(await auditViolations(store, outside.tools(), [], run.id)).toEqual([]);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });
});
