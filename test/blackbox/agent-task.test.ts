/**
 * `agent_task`: the executor model works with the listed read tools in a bounded loop and gives
 * `{ text, calls }`. A plan that lists a non-read tool is invalid; a call to a tool not listed is refused
 * and never reaches the tool; a write whose target the agent's text decides waits for Confirm.
 */
import { describe, expect, it } from 'vitest';
import { openAiReply } from '../fakes/openai-server.ts';
import { botMessages, clickByText, hasButtons, messageWithButtons, visibleText, waitFor, isSummary } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const stack = useStack();
const { slack } = stack;

describe('agent_task', () => {
  it('a plan that lists a write tool for agent_task is never executed', async () => {
    const pull = stack.github.addPull('acme/api', { title: 'Not by an agent', head: 'agent-write' });
    const invalid = plan('Investigate and merge', [
      step('s1', 'Investigate', 'agent_task', { instruction: 'Look at acme/api and merge what is ready', tools: ['github_get_repo', 'github_merge_pull'] }),
    ]);
    stack.openai.enqueue(openAiReply.json(invalid), openAiReply.json(invalid), openAiReply.json(invalid));
    const sent = stack.tandem.driver.mention({ channel: 'CG1', user: 'U1', text: '<@UBOT> investigate and merge' });
    await sent;
    await waitFor(
      slack,
      () => botMessages(slack, 'CG1', sent.ts).some((m) => /invalid|could ?n[o']t|failed|error|read/i.test(visibleText(m))),
      'the planner to give up',
      30_000,
    );
    expect(botMessages(slack, 'CG1', sent.ts).filter((m) => hasButtons(m, 'Approve'))).toEqual([]);
    expect(stack.github.repos.get('acme/api')!.pulls.get(pull.number)!.merged).toBe(false);
    // The planner's repair round was told why.
    expect(JSON.stringify(stack.openai.requests.at(-1)!.body)).toContain('github_merge_pull');
  });

  it('runs the listed read tool, refuses a call to an unlisted write tool before it reaches GitHub, and gives { text, calls }', async () => {
    const pull = stack.github.addPull('acme/api', { title: 'Tempting', head: 'tempting' });
    const { thread, planMessage } = await stack.planned(
      'CG2',
      'U1',
      'what is the default branch of acme/api',
      plan('Find the default branch', [
        step('s1', 'Investigate', 'agent_task', { instruction: 'Find the default branch of acme/api', tools: ['github_get_repo'], maxCalls: 4 }),
        step(
          's2',
          'Report',
          'slack_notify',
          { channel: 'CG2-out', text: 'agent: {{steps.s1.output.text}} | first ok={{steps.s1.output.calls.0.ok}} second ok={{steps.s1.output.calls.1.ok}}' },
          ['s1'],
        ),
      ]),
    );
    const requestsBefore = stack.openai.requests.length;
    stack.openai.enqueue(
      openAiReply.toolCalls([
        { name: 'github_get_repo', args: { repo: 'acme/api' } },
        { name: 'github_merge_pull', args: { repo: 'acme/api', number: pull.number } },
      ]),
      openAiReply.text('The default branch is main.'),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const report = await waitFor(slack, () => slack.model.messages.find((m) => m.channel === 'CG2-out'), 'the report', 30_000);
    expect(report.text).toContain('agent: The default branch is main.');
    expect(report.text).toContain('first ok=true second ok=false');
    expect(stack.github.requests.filter((r) => r.method === 'PUT')).toEqual([]);
    expect(stack.github.repos.get('acme/api')!.pulls.get(pull.number)!.merged).toBe(false);
    // Only the listed tool was offered to the model.
    const offered = (stack.openai.requests[requestsBefore]!.body as { tools?: { function?: { name?: string } }[] }).tools?.map((t) => t.function?.name);
    expect(offered).toEqual(['github_get_repo']);
    const summary = await waitFor(slack, () => botMessages(slack, 'CG2', thread).find((m) => isSummary(m)), 'the summary', 20_000);
    // What the agent found is in the summary, not only in what it wrote elsewhere (issue 29).
    expect(visibleText(summary)).toContain('The default branch is main.');
  });

  it("a notice whose channel the agent's text decides waits for Confirm", async () => {
    const { thread, planMessage } = await stack.planned(
      'CG3',
      'U1',
      'find where to tell and tell',
      plan('Find where to tell, then tell', [
        step('s1', 'Find the channel', 'agent_task', { instruction: 'Which channel should hear about acme/api?', tools: ['github_get_repo'] }),
        step('s2', 'Tell it', 'slack_notify', { channel: '{{steps.s1.output.text}}', text: 'picked by an agent' }, ['s1']),
      ]),
    );
    stack.openai.enqueue(openAiReply.text('CG3-picked'));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const confirm = await waitFor(slack, () => messageWithButtons(slack, 'CG3', thread, 'Confirm', 'Abort'), 'the Confirm request', 30_000);
    expect(visibleText(confirm)).toContain('CG3-picked');
    await stack.tandem.untilIdle();
    expect(stack.texts('CG3-picked')).toEqual([]);
    await clickByText(stack.tandem.driver, confirm, 'Confirm', 'U3');
    await waitFor(slack, () => stack.texts('CG3-picked').includes('picked by an agent'), 'the confirmed notice', 20_000);
  });
});
