import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { FULL_PLAN_ACTION } from '../../src/bot/views/plan/full-plan-modal.ts';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { eventually, silentLogger, startSlackHarness, type SlackHarness } from '../fakes/slack-harness.ts';
import { makeProposal, makeRun } from '../fakes/slack-fixtures.ts';

let h: SlackHarness;
let surface: SlackSurface;
const run = makeRun();

beforeEach(async () => {
  h = await startSlackHarness();
  surface = new SlackSurface({ client: h.slack.client, logger: silentLogger(), escalateTo: 'SOPS' });
  h.runs.runs.push(run);
});
afterEach(() => h.stop());

const release = (index: number, size: number) => ({
  id: `s${index}`,
  title: `Release ${index}`,
  tool: 'github_create_release',
  args: { repo: 'acme/api', tag: `v${index}.0.0`, body: `notes ${index} <!channel> ${'y'.repeat(size)} end ${index}` },
  dependsOn: [],
});

async function postPlan(plan: Plan, digest?: string) {
  h.runs.plans.push({
    runId: run.id,
    version: 1,
    plan,
    authorKind: 'planner',
    authorId: 'openai:gpt-4o',
    parentVersion: null,
    reason: null,
    createdAt: new Date(),
  });
  const risks = Object.fromEntries(plan.steps.map((s) => [s.id, 'write' as const]));
  await surface.proposePlan(makeProposal(plan, { risks, ...(digest ? { digest } : {}) }));
  return h.fake.model.messages.at(-1)!;
}

describe('View full plan', () => {
  it('opens a read-only modal with the exact arguments, and sends what does not fit one modal privately in the thread', async () => {
    const plan: Plan = { schemaVersion: 1, goal: 'Ship', confidence: 0.9, steps: [1, 2, 3].map((i) => release(i, 90_000)), rollback: [] };
    const message = await postPlan(plan);
    await h.driver.clickButtonIn(message, FULL_PLAN_ACTION, 'UAPP');
    await h.fake.waitForCall('views.update');
    const [view] = [...h.fake.model.views.values()];
    const modal = JSON.stringify(view!.view);
    expect(view!.view).not.toHaveProperty('submit');
    expect(modal).toContain('notes 1 &lt;!channel&gt;');
    expect(modal).toContain('longer than one window');
    await eventually(() => {
      const all = modal + JSON.stringify(h.fake.model.ephemeralsFor('UAPP'));
      for (const index of [1, 2, 3]) expect(all).toContain(`end ${index}`);
    });
    expect(h.fake.model.ephemeralsFor('UAPP').every((e) => e.threadTs === run.conversation.threadTs)).toBe(true);
    expect(h.agent.callsOf('decide')).toEqual([]);
  });

  it('Approve passes the digest its message showed to the agent', async () => {
    const digest = 'c0ffee'.repeat(10) + 'abcd';
    const message = await postPlan({ schemaVersion: 1, goal: 'Ship', confidence: 0.9, steps: [release(1, 10)], rollback: [] }, digest);
    expect(JSON.stringify(message.blocks)).toContain('c0ffeec0ffee');
    await h.driver.clickButtonIn(message, PLAN_APPROVE_ACTION, 'UAPP');
    await eventually(() =>
      expect(h.agent.callsOf('decide')).toEqual([{ runId: 'run_1', planVersion: 1, userId: 'UAPP', decision: 'approve', digest: 'c0ffeec0ffee' }]),
    );
  });

  it("the Slack surface gives a run's thread its permalink, for attribution lines", async () => {
    const root = await h.slack.client.chat.postMessage({ channel: 'C1', text: '@tandem ship it' });
    const link = await surface.threadLink(makeRun({ conversation: { channel: 'C1', threadTs: root.ts! } }));
    expect(link).toMatch(new RegExp(`/archives/C1/p${root.ts!.replace('.', '')}$`));
  });
});
