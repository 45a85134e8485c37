/**
 * Parallel waits answered in any order on two replicas sharing one store (issue 31's fast-check model): two or
 * three deploys fail side by side, each escalation is answered (Retry or Skip) on whichever replica the model
 * picks, in any order. Only the answered step moves; every wait is answered in the end; each deploy is called
 * at most twice; the run ends with its true outcome and `tandem audit` finds nothing wrong. The in-memory store
 * passes the store's contract suite, leases included (test/replicas/parallel-waits.test.ts runs one fixed order
 * on PostgreSQL with two processes' pools).
 */
import fc from 'fast-check';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import type { EscalationRecord } from '../../src/agent/ports/run-store.ts';
import { auditViolations } from '../audit/support.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
let replicas: Harness[] = [];
afterEach(async () => {
  await Promise.all(replicas.map((r) => r.agent.shutdown(1000)));
  replicas = [];
});

const APPROVERS = ['UAPP'];
type Answer = 'retry' | 'skip';

/** The world both replicas act on: each deploy concludes `failure` the first time only. */
function world() {
  const tries = new Map<string, number>();
  const deploy = fakeTool({
    name: 'deploy',
    risk: 'write',
    run: (args) => {
      const key = String(args.key);
      tries.set(key, (tries.get(key) ?? 0) + 1);
      return tries.get(key) === 1
        ? { status: 'error', error: { message: `the deploy of ${key} concluded failure` } }
        : { status: 'ok', output: { deployed: key } };
    },
  });
  const note = fakeTool({ name: 'note', risk: 'read', input: z.object({ key: z.string() }) });
  return { deploy, note, callsOf: (key: string) => tries.get(key) ?? 0 };
}

function parallelPlan(n: number) {
  const steps = Array.from({ length: n }, (_, i) => [
    { id: `d${i + 1}`, title: `deploy ${i + 1}`, tool: 'deploy', args: { key: `app${i + 1}` } },
    { id: `n${i + 1}`, title: `note ${i + 1}`, tool: 'note', args: { key: `app${i + 1}` }, dependsOn: [`d${i + 1}`] },
  ]).flat();
  return plannerAnswer({ steps });
}

describe('parallel waits answered in any order, on two replicas', () => {
  it('only the answered step moves; every wait is answered in the end; the audit is clean', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 3 }).chain((n) =>
          fc.tuple(
            fc.constant(n),
            fc.shuffledSubarray(
              Array.from({ length: n }, (_, i) => i),
              { minLength: n, maxLength: n },
            ),
            fc.array(fc.constantFrom<Answer>('retry', 'skip'), { minLength: n, maxLength: n }),
            fc.array(fc.integer({ min: 0, max: 1 }), { minLength: n, maxLength: n }),
          ),
        ),
        async ([n, order, answers, on]) => {
          const w = world();
          const tools = [w.deploy, w.note];
          const a = makeHarness({ store: db.store, tools, llm: new ScriptedLlm().on('planner', parallelPlan(n)), approvers: APPROVERS, owner: 'replica-a' });
          const b = makeHarness({ store: db.store, tools, approvers: APPROVERS, owner: 'replica-b' });
          replicas = [a, b];
          const idle = () => Promise.all(replicas.map((r) => r.agent.idle()));
          const run = await a.start();
          expect((await a.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).ok).toBe(true);
          await idle();
          const open = async () => (await db.store.listEscalations(run.id)).filter((e) => e.status === 'open');
          const escalations: EscalationRecord[] = (await open()).sort((x, y) => x.stepId!.localeCompare(y.stepId!));
          expect(escalations.map((e) => e.stepId)).toEqual(Array.from({ length: n }, (_, i) => `d${i + 1}`));
          const statuses = async () => new Map((await db.store.listSteps(run.id)).map((s) => [s.stepId, s.status]));

          const answered = new Set<number>();
          for (const index of order) {
            const before = await statuses();
            const replica = replicas[on[index]!]!;
            const result = await replica.agent.resolveEscalation({ escalationId: escalations[index]!.id, userId: 'UAPP', action: answers[index]! });
            expect(result.ok).toBe(true);
            await idle();
            answered.add(index);
            const after = await statuses();
            for (let i = 0; i < n; i++) {
              const moved = answers[i] === 'retry' ? 'succeeded' : 'skipped';
              if (i === index) expect([after.get(`d${i + 1}`), after.get(`n${i + 1}`)]).toEqual([moved, moved]);
              else expect([after.get(`d${i + 1}`), after.get(`n${i + 1}`)]).toEqual([before.get(`d${i + 1}`), before.get(`n${i + 1}`)]);
            }
            expect((await open()).map((e) => e.id).sort()).toEqual(
              escalations
                .filter((_, i) => !answered.has(i))
                .map((e) => e.id)
                .sort(),
            );
          }
          const skipped = answers.filter((x) => x === 'skip').length;
          expect((await db.store.getRun(run.id))?.status).toBe('succeeded');
          for (let i = 0; i < n; i++) expect(w.callsOf(`app${i + 1}`)).toBe(answers[i] === 'retry' ? 2 : 1);
          const summary = [...a.surface.of(run.id, 'summary'), ...b.surface.of(run.id, 'summary')];
          expect(summary).toHaveLength(1);
          expect(summary[0]!.summary.verdict?.kind).toBe(skipped ? 'finished-with-problems' : 'succeeded');
          expect(await auditViolations(db.store, tools, APPROVERS, run.id)).toEqual([]);
          expect([...a.errors, ...b.errors]).toEqual([]);
          await Promise.all(replicas.map((r) => r.agent.shutdown(1000)));
          replicas = [];
        },
      ),
      { numRuns: 12, endOnFailure: true },
    );
  }, 180_000);
});
