import { describe, expect, it } from 'vitest';
import type { RunRecord, RunStore } from '../../src/agent/ports/run-store.ts';
import { InMemorySurface } from '../../src/agent/testing/in-memory-surface.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { createRunStore, openDatabase, type Database } from '../../src/store/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { said } from '../helpers/words.ts';
import { sweepIntervalMs } from '../../src/runtime/housekeeping.ts';

// The real engine, not the in-memory store: two replicas sweep one database, through two connection pools on PostgreSQL.
const db = useTestStore();
const MINUTE = 60_000;
const after = (from: Date, minutes: number) => new Date(from.getTime() + minutes * MINUTE + 1000);
/** The product's defaults: a reminder after 30 minutes, expiry after a day. */
const REMIND_MIN = 30;
const TTL_MIN = 1440;
let threads = 0;

const writePlan = plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 'release notes' } }] });

function harness(
  options: { store?: RunStore; surface?: InMemorySurface; owner?: string; planner?: boolean } = {},
): Harness & { tools: ReturnType<typeof standardTools> } {
  const tools = standardTools();
  const llm = new ScriptedLlm();
  if (options.planner) llm.on('planner', writePlan);
  const h = makeHarness({
    store: options.store ?? db.store,
    tools: tools.all,
    llm,
    approvers: ['UAPP'],
    surface: options.surface,
    owner: options.owner,
    settings: { housekeeping: { approvers: ['UAPP'] } },
  });
  return { ...h, tools };
}

/** A run paused on an open escalation, as the executor leaves one. */
async function pausedOnEscalation(store: RunStore) {
  const run = await store.createRun({
    task: 'deploy api',
    requester: 'UREQ',
    conversation: { channel: 'C1', threadTs: `esc.${++threads}` },
    origin: 'mention',
  });
  await store.transitionRun(run.id, ['planning'], 'paused');
  const escalation = await store.openEscalation({
    runId: run.id,
    planVersion: null,
    stepId: null,
    kind: 'step-failed',
    message: 'deploy failed: 502 from the API',
  });
  return { run, escalation };
}

async function planOpenedAt(store: RunStore, run: RunRecord): Promise<Date> {
  return (await store.getPlanVersion(run.id, 1))!.createdAt;
}

describe('housekeeping', () => {
  it('reminds once about a plan left waiting for approval, naming the approvers, then expires it without running anything', async () => {
    const h = harness({ planner: true });
    const run = await h.start('write the release notes');
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-approval');
    const proposed = await planOpenedAt(h.store, run);

    await h.agent.housekeep(after(proposed, REMIND_MIN - 1));
    expect(h.surface.of(run.id, 'notice')).toEqual([]);

    await h.agent.housekeep(after(proposed, REMIND_MIN));
    await h.agent.housekeep(after(proposed, REMIND_MIN * 3));
    const reminders = h.surface.of(run.id, 'notice');
    expect(reminders).toHaveLength(1);
    expect(said(reminders[0]!.text)).toMatch(/^<@UAPP> The plan above is still waiting for an approver\. .*expires in 23 hours\.$/);

    await h.agent.housekeep(after(proposed, TTL_MIN));
    await h.agent.housekeep(after(proposed, TTL_MIN + 60));
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('expired');
    const summaries = h.surface.of(run.id, 'summary');
    expect(summaries).toHaveLength(1);
    expect(said(summaries[0]!.summary.reason!)).toMatch(/^The plan expired: nobody approved it within 1 day, and nothing ran\./);
    expect(summaries[0]!.summary.outcome).toBe('expired'); // the summary offers Propose again
    expect(h.tools.write.calls).toHaveLength(0);
    expect(h.surface.of(run.id, 'notice')).toHaveLength(1);
    // Too late to approve: an old click runs nothing, and the clicker is told the plan expired.
    const late = await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    expect(late).toEqual({ ok: false, error: expect.objectContaining({ code: 'wait-expired' }) });
    expect(said(late.ok ? '' : late.error.message)).toMatch(/^This plan expired: nobody approved it in time, and nothing ran\. .*Propose again/);
    expect(h.tools.write.calls).toHaveLength(0);
    expect(h.errors).toEqual([]);
  });

  it('re-posts an open escalation once as a reminder and never again, past its TTL too; the run stays paused', async () => {
    const h = harness();
    const { run, escalation } = await pausedOnEscalation(h.store);
    const opened = escalation.createdAt;

    await h.agent.housekeep(after(opened, REMIND_MIN - 1));
    expect(h.surface.of(run.id, 'escalation')).toEqual([]);

    await h.agent.housekeep(after(opened, REMIND_MIN));
    await h.agent.housekeep(after(opened, REMIND_MIN * 4));
    const pings = h.surface.of(run.id, 'escalation');
    expect(pings).toHaveLength(1);
    expect(pings[0]).toMatchObject({
      escalation: { id: escalation.id, message: 'deploy failed: 502 from the API' },
      offer: expect.objectContaining({ note: expect.stringMatching(/^Still waiting for a decision/) }),
    });

    // Re-pinged once (CONTRACT §5): the TTL sends nothing more, and an escalation does not expire.
    await h.agent.housekeep(after(opened, TTL_MIN));
    await h.agent.housekeep(after(opened, TTL_MIN * 2));
    expect(h.surface.of(run.id, 'escalation')).toHaveLength(1);
    expect(h.surface.of(run.id, 'notice')).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('paused');

    await h.store.resolveEscalation({ id: escalation.id, action: 'abort', userId: 'UAPP' });
    await h.agent.housekeep(after(opened, TTL_MIN * 3));
    // The answered escalation is not posted again; the run it left paused with nothing to answer goes to a person.
    expect(h.surface.of(run.id, 'escalation').filter((m) => m.escalation.id === escalation.id)).toHaveLength(1);
    expect(h.surface.of(run.id, 'escalation').map((m) => m.escalation.kind)).toEqual(['step-failed', 'driver-failed']);
  });

  it('asks an unanswered question again once and never again, past its TTL too; the run keeps waiting', async () => {
    const surface = new InMemorySurface();
    const tools = standardTools();
    const h = makeHarness({
      store: db.store,
      tools: tools.all,
      llm: new ScriptedLlm(),
      approvers: ['UAPP'],
      surface,
    });
    const run = await h.store.createRun({
      task: 'which region?',
      requester: 'UREQ',
      conversation: { channel: 'C1', threadTs: `q.${++threads}` },
      origin: 'mention',
    });
    await h.store.transitionRun(run.id, ['planning'], 'awaiting-answer');
    const question = await h.store.openQuestion({ runId: run.id, stepId: null, planVersion: null, question: 'Which region?\nWhich tier?' });
    const asked = question.createdAt;

    await h.agent.housekeep(after(asked, REMIND_MIN));
    await h.agent.housekeep(after(asked, REMIND_MIN * 2));
    expect(surface.of(run.id, 'questions')).toEqual([expect.objectContaining({ questions: ['Which region?', 'Which tier?'] })]);

    await h.agent.housekeep(after(asked, TTL_MIN));
    await h.agent.housekeep(after(asked, TTL_MIN + 30));
    expect(surface.of(run.id, 'questions')).toHaveLength(1);
    expect(surface.of(run.id, 'notice')).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-answer');
  });

  it('reports a step running far past its timeout once per attempt', async () => {
    const h = harness();
    const run = await h.store.createRun({
      task: 'tag the release',
      requester: 'UREQ',
      conversation: { channel: 'C1', threadTs: `stuck.${++threads}` },
      origin: 'mention',
    });
    await h.store.transitionRun(run.id, ['planning'], 'executing');
    const plan = {
      schemaVersion: 1 as const,
      goal: 'Tag the release',
      confidence: 0.9,
      steps: [{ id: 's1', title: 'Create the tag', tool: 'create_thing', args: { title: 'v1' }, dependsOn: [] }],
      rollback: [],
    };
    await h.store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'fake:scripted', parentVersion: null, reason: null });
    await h.store.createSteps(run.id, 1, [
      { stepId: 's1', kind: 'forward', title: 'Create the tag', tool: 'create_thing', risk: 'write', dependsOn: [], plannedArgs: { title: 'v1' } },
    ]);
    await h.store.updateRun(run.id, { currentPlanVersion: 1 });
    await h.store.recordApproval({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approved', need: 'approver' });
    // A replica claimed the step and died.
    const step = await h.store.claimStep({
      runId: run.id,
      planVersion: 1,
      stepId: 's1',
      owner: 'dead-replica',
      leaseMs: 30_000,
      executedArgs: { title: 'v1' },
    });
    const started = step!.startedAt!;

    // TANDEM_STEP_TIMEOUT_S is 600 in the harness: a step is stuck after 20 minutes.
    await h.agent.housekeep(after(started, 19));
    expect(h.surface.of(run.id, 'notice')).toEqual([]);

    await h.agent.housekeep(after(started, 21));
    await h.agent.housekeep(after(started, 40));
    const notices = h.surface.of(run.id, 'notice');
    expect(notices).toHaveLength(1);
    expect(said(notices[0]!.text)).toMatch(
      /^Step s1 \(Create the tag\) has been running for 21 minutes, more than twice its 600-second limit.*another replica adopts the run/,
    );
    expect((await h.store.listSteps(run.id))[0]?.status).toBe('running'); // reporting settles nothing
  });

  it('two replicas sweeping at the same moment send each reminder once, and the TTL sends nothing more', async () => {
    // A second connection pool on PostgreSQL; PGlite is one process, so the same store swept twice at once.
    const other: Database | undefined = db.database.url ? await openDatabase({ url: db.database.url }) : undefined;
    try {
      const surface = new InMemorySurface();
      const a = harness({ surface, owner: 'replica-a', planner: true });
      const b = harness({ store: other ? createRunStore(other.db) : db.store, surface, owner: 'replica-b' });
      const waiting = await a.start('write the release notes');
      const { run: paused, escalation } = await pausedOnEscalation(a.store);
      const proposed = await planOpenedAt(a.store, waiting);
      const later = new Date(Math.max(proposed.getTime(), escalation.createdAt.getTime()));

      await Promise.all([a.agent.housekeep(after(later, REMIND_MIN + 1)), b.agent.housekeep(after(later, REMIND_MIN + 1))]);
      expect(surface.of(waiting.id, 'notice')).toHaveLength(1);
      expect(surface.of(paused.id, 'escalation')).toHaveLength(1);

      await Promise.all([a.agent.housekeep(after(later, TTL_MIN + 1)), b.agent.housekeep(after(later, TTL_MIN + 1))]);
      await Promise.all([a.agent.idle(), b.agent.idle()]);
      expect(surface.of(waiting.id, 'summary')).toHaveLength(1);
      expect(surface.of(paused.id, 'escalation')).toHaveLength(1); // the one reminder, at neither replica's TTL again
      expect([...a.errors, ...b.errors]).toEqual([]);
    } finally {
      await other?.close();
    }
  });
});

describe('housekeeping settings', () => {
  it('default to a reminder after 1800 s and expiry after 86400 s, and reject a value that is not a positive whole number in one line', () => {
    expect(loadConfig({}).housekeeping).toEqual({ remindAfterS: 1800, waitTtlS: 86_400 });
    expect(loadConfig({ TANDEM_REMIND_AFTER_S: '15', TANDEM_APPROVAL_TTL_S: '60' }).housekeeping).toEqual({ remindAfterS: 15, waitTtlS: 60 });
    for (const [variable, value] of [
      ['TANDEM_REMIND_AFTER_S', '0'],
      ['TANDEM_APPROVAL_TTL_S', 'a day'],
      ['TANDEM_REMIND_AFTER_S', '1.5'],
    ]) {
      expect(() => loadConfig({ [variable!]: value! })).toThrow(ConfigError);
      expect(() => loadConfig({ [variable!]: value! })).toThrow(new RegExp(`^${variable}: [^\\n]+$`));
    }
  });

  it('sweeps at least twice within the shorter of the reminder and the expiry, at most once a second, at least once a minute', () => {
    expect(sweepIntervalMs({ remindAfterS: 1800, waitTtlS: 86_400 })).toBe(60_000);
    expect(sweepIntervalMs({ remindAfterS: 10, waitTtlS: 86_400 })).toBe(5000);
    expect(sweepIntervalMs({ remindAfterS: 1800, waitTtlS: 1 })).toBe(1000);
  });
});
