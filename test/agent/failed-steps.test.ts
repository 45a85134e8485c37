/**
 * A failed change goes to a person; only a failed read is replanned on its own. The real
 * github_dispatch_workflow tool against fake GitHub, the real Slack surface against fake Slack.
 */
import { randomUUID } from 'node:crypto';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '../../src/agent/agent.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { createGithubDispatchWorkflowTool } from '../../src/integrations/tools/github/github-dispatch-workflow.ts';
import { SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { BOT_TOKEN, silentLogger } from '../fakes/slack-harness.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { testGithub } from '../tools/tool-context.ts';
import { fakeTool, standardTools } from './support/fake-tools.ts';
import { BUDGETS, collectingLogger } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { approversGate } from '../helpers/policy-gate.ts';

const db = useMemoryStore();
let slack: SlackFakeServer;
let github: FakeGithub;

beforeAll(async () => {
  slack = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  github = await startFakeGithub();
  github.addRepo('acme/api');
  github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', conclusion: 'failure' });
});
afterAll(async () => {
  await Promise.all([slack.stop(), github.close()]);
});

function agentWith(llm: ScriptedLlm, errors: unknown[]): Agent {
  const client = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: slack.apiUrl, logLevel: webApi.LogLevel.ERROR });
  const failingRead = fakeTool({ name: 'lookup', risk: 'read', run: () => ({ status: 'error', error: { message: 'repo acme/ap not found (404)' } }) });
  return createAgent({
    store: db.store,
    llm,
    tools: [...standardTools().all, failingRead, createGithubDispatchWorkflowTool(testGithub(github.url), { initialMs: 5, maxMs: 20, findTimeoutMs: 2_000 })],
    surface: new SlackSurface({ client, logger: silentLogger(), escalateTo: 'S0ONCALL', boardIntervalMs: 20 }),
    policy: approversGate(['UAPP']),
    settings: { budgets: BUDGETS, confidenceThreshold: 0.6, autoRunReadOnly: false, secrets: [], concurrency: 4, retry: { retries: 0, baseDelayMs: 1 } },
    logger: collectingLogger(errors),
    owner: 'replica-a',
    soleOwner: true,
  });
}

const start = async (agent: Agent, task: string) => {
  const run = await agent.startRun({ task, requester: 'UREQ', conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
  await agent.idle();
  return run;
};

describe('a failed step', () => {
  it('a deploy whose workflow concludes failure escalates with the ping and Retry / Skip / Replan / Abort; no replan is asked for', async () => {
    const errors: unknown[] = [];
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({ steps: [{ id: 's1', tool: 'github_dispatch_workflow', args: { repo: 'acme/api', workflow: 'deploy.yml', ref: 'main' } }] }),
    );
    const agent = agentWith(llm, errors);
    const run = await start(agent, 'deploy acme/api');
    expect(await agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
    await agent.idle();

    expect((await db.store.getRun(run.id))?.status).toBe('paused');
    expect((await db.store.listEscalations(run.id)).map((e) => [e.kind, e.stepId, e.status])).toEqual([['step-failed', 's1', 'open']]);
    const posted = slack.model.thread('C1', run.conversation.threadTs).find((m) => m.text.startsWith('<!subteam^S0ONCALL>'));
    expect(posted, 'an escalation that pings TANDEM_ESCALATE_TO').toBeDefined();
    const blocks = (posted!.blocks ?? []) as { type: string; elements?: { text: { text: string } }[] }[];
    const labels = blocks.flatMap((block) => (block.type === 'actions' ? (block.elements ?? []).map((e) => e.text.text) : []));
    expect(labels).toEqual(['Retry', 'Skip', 'Replan', 'Abort', 'Reassign']);
    expect(JSON.stringify(posted!.blocks)).toMatch(/failed: .*failure/);
    // The plan has no rollback steps: Abort does not promise to undo anything.
    expect(JSON.stringify(posted!.blocks)).toContain('*Abort* stops the run');
    expect(JSON.stringify(posted!.blocks)).not.toMatch(/undoes|rolls back/);
    expect(await db.store.listPlanVersions(run.id)).toHaveLength(1);
    llm.assertDone();
    expect(errors).toEqual([]);
  });

  it('a failed read step is replanned within the budget, and the new version says why', async () => {
    const errors: unknown[] = [];
    const llm = new ScriptedLlm()
      .on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'lookup', args: { key: 'acme/ap' } }] }))
      .on('planner', plannerAnswer({ steps: [{ id: 's2', tool: 'read_thing', args: { key: 'acme/api' } }] }));
    const agent = agentWith(llm, errors);
    const run = await start(agent, 'look at acme/ap');
    await agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await agent.idle();
    const versions = await db.store.listPlanVersions(run.id);
    expect(versions.map((v) => [v.version, v.reason])).toEqual([
      [1, null],
      [2, 'replan: s1 (step s1) failed: repo acme/ap not found (404)'],
    ]);
    expect(await db.store.listEscalations(run.id)).toEqual([]);
    const thread = slack.model.thread('C1', run.conversation.threadTs);
    expect(thread.some((m) => m.text.includes('Plan v2') || JSON.stringify(m.blocks).includes('replan: s1 (step s1) failed'))).toBe(true);
    llm.assertDone();
    expect(errors).toEqual([]);
  });
});
