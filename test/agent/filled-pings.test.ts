/**
 * A value filled in at run time is data (contract §5): it cannot complete a mention the plan left open. A
 * slack_notify text such as `<!{{steps.s1.output.text}}>` is flagged on the plan, and when the filled text
 * pings where the approved text did not (`<!channel>`, a user group), the step fails and nothing is posted.
 */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { planFlags } from '../../src/bot/views/plan/plan-flags.ts';
import { createSlackNotifyTool } from '../../src/integrations/tools/thread/slack-notify.ts';
import type { SlackPoster } from '../../src/integrations/tools/thread/slack-poster.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();

/** An in-memory Slack that keeps what was posted. */
function fakeSlack() {
  const posted: { channel: string; text: string }[] = [];
  const poster: SlackPoster = {
    async postMessage({ channel, text }) {
      posted.push({ channel, text });
      return { ts: `${posted.length}.0001`, channel };
    },
    async findMessage() {
      return undefined;
    },
  };
  return { poster, posted };
}

const notifyPlan = (text: string): Plan => ({
  schemaVersion: 1,
  goal: 'Announce',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Read', tool: 'read_thing', args: { key: 'k' }, dependsOn: [] },
    { id: 's2', title: 'Post', tool: 'slack_notify', args: { channel: 'C1', text }, dependsOn: ['s1'] },
  ],
  rollback: [],
});

async function runNotify(text: string, filled: string) {
  const slack = fakeSlack();
  const read = fakeTool({ name: 'read_thing', risk: 'read', run: () => ({ status: 'ok', output: { text: filled } }) });
  const h = makeHarness({
    store: db.store,
    tools: [read, createSlackNotifyTool(slack.poster)],
    llm: new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'read_thing', args: { key: 'k' } },
          { id: 's2', tool: 'slack_notify', args: { channel: 'C1', text }, dependsOn: ['s1'] },
        ],
      }),
    ),
  });
  const run = await h.start('announce the release', 'UREQ');
  await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
  await h.agent.idle();
  const step = (await h.store.listSteps(run.id)).find((s) => s.stepId === 's2')!;
  return { posted: slack.posted, step };
}

describe('a mention completed by a filled value', () => {
  it.each([
    ['Release is out <!{{steps.s1.output.text}}>', 'pings @channel'],
    ['Release is out <!subteam^{{steps.s1.output.text}}>', 'pings user group S0ENGINEERS'],
    ['Release is out <{{steps.s1.output.text}}>', 'pings @here'],
  ])('%s is flagged on the plan, and the step fails instead of posting a ping nobody approved', async (text, ping) => {
    expect(planFlags(notifyPlan(text))).toEqual([
      { where: 'step 2', flags: [expect.stringContaining('a mention or link whose content is filled in at run time')] },
    ]);
    const filled = ping.includes('group') ? 'S0ENGINEERS' : ping.includes('here') ? '!here' : 'channel';
    const { posted, step } = await runNotify(text, filled);
    expect(posted).toEqual([]);
    expect(step.status).toBe('failed');
    expect(step.error?.code).toBe('ping-not-approved');
    expect(step.error?.message).toContain(ping);
  });

  it('a mention of the person who answered, and a ping the approver read, still post', async () => {
    const { posted, step } = await runNotify('<!here> thanks <@{{steps.s1.output.text}}>', 'U0ANSWER');
    expect(step.status).toBe('succeeded');
    expect(posted).toEqual([{ channel: 'C1', text: '<!here> thanks <@U0ANSWER>' }]);
  });

  it('a ping spelled out in the filled value is escaped, as before', async () => {
    const { posted } = await runNotify('Title: {{steps.s1.output.text}}', '<!channel> hi');
    expect(posted).toEqual([{ channel: 'C1', text: 'Title: &lt;!channel&gt; hi' }]);
  });
});

describe('a link labelled by a filled value', () => {
  it.each([
    ['Notes: <{{steps.s1.output.text}}>', 'https://evil.example/x|the release notes'],
    ['Notes: <https://docs.example/{{steps.s1.output.text}}>', 'x|the release notes'],
  ])('%s filled so its text is not its address is flagged on the plan, and the step fails instead of posting it', async (text, filled) => {
    expect(planFlags(notifyPlan(text))).toEqual([{ where: 'step 2', flags: [expect.stringContaining('nor make a link whose text is not its address')] }]);
    const { posted, step } = await runNotify(text, filled);
    expect(posted).toEqual([]);
    expect(step.status).toBe('failed');
    expect(step.error?.code).toBe('link-not-approved');
    expect(step.error?.message).toContain('shows a link as "the release notes"');
    expect(step.error?.message).toContain('nothing was posted');
  });

  it.each([
    ['a label the plan wrote', 'See <{{steps.s1.output.text}}|the issue>', 'https://github.example/a/b/issues/1'],
    ['an address alone', 'See <{{steps.s1.output.text}}>', 'https://github.example/a/b/issues/1'],
    ['a label that is the address', 'See <{{steps.s1.output.text}}>', 'https://a.example/|a.example'],
  ])('%s still posts', async (_what, text, filled) => {
    const { posted, step } = await runNotify(text, filled);
    expect(step.status).toBe('succeeded');
    expect(posted).toHaveLength(1);
  });
});
