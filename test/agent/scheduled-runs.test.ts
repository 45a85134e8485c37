import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '../../src/agent/agent.ts';
import type { RunRecord } from '../../src/agent/ports/run-store.ts';
import { InMemorySurface } from '../../src/agent/testing/in-memory-surface.ts';
import { createRunbookCatalog, type RunbookCatalog } from '../../src/runbooks/catalog.ts';
import { createRunbooksStore } from '../../src/store/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { BUDGETS, collectingLogger } from './support/harness.ts';
import { ScriptedLlm } from './support/scripted-llm.ts';
import { approversGate } from '../helpers/policy-gate.ts';

// The real engine, not the in-memory store: the runbook catalog keeps its runbooks in the same database (createRunbooksStore).
const db = useTestStore();
let dir: string;
let catalog: RunbookCatalog;
const quiet = { info: () => undefined, warn: () => undefined };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tandem-scheduled-'));
  await writeFile(
    path.join(dir, 'look.yml'),
    'name: look\npattern: "look at {key}"\npreApproved: true\nplan:\n  goal: "Look at {key}"\n  steps:\n    - { id: s1, title: "Read {key}", tool: read_thing, args: { key: "{key}" } }\n',
  );
  await writeFile(
    path.join(dir, 'make.yml'),
    'name: make\npattern: "make {title}"\npreApproved: true\nplan:\n  goal: "Make {title}"\n  steps:\n    - { id: s1, title: "Create {title}", tool: create_thing, args: { title: "{title}" } }\n',
  );
  await writeFile(
    path.join(dir, 'peek.yml'),
    'name: peek\npattern: "peek at {key}"\nplan:\n  goal: "Peek at {key}"\n  steps:\n    - { id: s1, title: "Read {key}", tool: read_thing, args: { key: "{key}" } }\n',
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function setup() {
  const tools = standardTools();
  const risks = new Map(tools.all.map((tool) => [tool.name, tool.risk]));
  catalog = await createRunbookCatalog({ store: createRunbooksStore(db.database.db), dir, logger: quiet, riskOf: (tool) => risks.get(tool) });
  const errors: unknown[] = [];
  const surface = new InMemorySurface();
  const llm = new ScriptedLlm(); // no planner answers: any model call fails the run
  const agent: Agent = createAgent({
    store: db.store,
    llm,
    tools: tools.all,
    surface,
    policy: approversGate(['UAPP']),
    settings: { budgets: BUDGETS, confidenceThreshold: 0.6, autoRunReadOnly: false, secrets: [], concurrency: 4, retry: { retries: 0, baseDelayMs: 1 } },
    logger: collectingLogger(errors),
    owner: 'replica-a',
    runbooks: catalog,
  });
  const start = async (task: string, origin: RunRecord['origin']) => {
    const run = await agent.startRun({ task, requester: 'UREQ', conversation: { channel: 'C1', threadTs: randomUUID() }, origin });
    await agent.idle();
    return (await db.store.getRun(run.id))!;
  };
  return { tools, surface, llm, agent, errors, start };
}

describe('scheduled runs and pre-approved runbooks', () => {
  it('a scheduled run of a runbook pre-approved for read-only steps runs without a click, approved by the runbook', async () => {
    const s = await setup();
    const run = await s.start('look at dashboard', 'schedule');
    expect(run.status).toBe('succeeded');
    expect(s.tools.read.calls.map((call) => call.args)).toEqual([{ key: 'dashboard' }]);
    expect((await db.store.listApprovals(run.id)).map((a) => `${a.userId}:${a.decision}`)).toEqual(['runbook:look:approved']);
    const [plan] = s.surface.of(run.id, 'plan');
    expect(plan?.proposal).toMatchObject({ authorKind: 'runbook', authorId: 'look', autoApproved: true, approvedBy: 'runbook:look' });
    expect(s.llm.calls).toHaveLength(0);
    expect(s.errors).toEqual([]);
    await s.agent.shutdown(1000);
  });

  it('the same runbook asked for by a person still waits for a click', async () => {
    const s = await setup();
    const run = await s.start('look at dashboard', 'mention');
    expect(run.status).toBe('awaiting-approval');
    expect(s.tools.read.calls).toHaveLength(0);
    await s.agent.shutdown(1000);
  });

  it('a scheduled run waits for approval when the pre-approved runbook writes, or the runbook is not pre-approved', async () => {
    const s = await setup();
    const writing = await s.start('make widget', 'schedule');
    expect(writing.status).toBe('awaiting-approval');
    expect(s.surface.of(writing.id, 'plan')[0]?.proposal).toMatchObject({ autoApproved: false });
    const plain = await s.start('peek at dashboard', 'schedule');
    expect(plain.status).toBe('awaiting-approval');
    expect(s.tools.write.calls).toHaveLength(0);
    expect(s.tools.read.calls).toHaveLength(0);

    expect(await s.agent.decide({ runId: writing.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
    await s.agent.idle();
    expect((await db.store.getRun(writing.id))?.status).toBe('succeeded');
    expect(s.tools.write.calls.map((call) => call.args)).toEqual([{ title: 'widget' }]);
    await s.agent.shutdown(1000);
  });
});
