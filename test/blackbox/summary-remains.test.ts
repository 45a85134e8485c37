/**
 * Review 16's summary findings through the real process and the Slack, GitHub and OpenAI fakes (contract
 * §5: "what was … cancelled … and what remains", "the results a person asked for (a read's answer, with a
 * link to the rest)", "a plan not approved within TANDEM_APPROVAL_TTL_S expires").
 */
import { describe, expect, it } from 'vitest';
import { runTandem } from '../cli/tandem-process.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { botMessages, clickByText, isSummary, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { commandAnswer } from './slack-answers.ts';
import { useStack } from './stack.ts';

// Plans here are approved at once, except the one left to expire.
const stack = useStack({ env: () => ({ TANDEM_APPROVAL_TTL_S: '5' }) });
const summaryIn = (channel: string, thread: string) => botMessages(stack.slack, channel, thread).find((m) => isSummary(m));

describe('the summary says what remains, what reads found, and that a plan expired', () => {
  it('a cancel during a wait: the summary names the step that never ran, and the wait it stopped', async () => {
    const channel = 'C1601';
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'wait then tell',
      plan('Wait, then tell', [
        step('s1', 'Wait a while', 'wait', { seconds: 30 }),
        step('s2', 'Tell the deploys channel', 'slack_notify', { channel: 'C1691', text: 'x' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(stack.slack, () => /running/i.test(stack.boardText(channel, thread, planMessage.ts)), 'the run to start', 20_000);
    await stack.tandem.driver.mention({ channel, user: 'U2', text: '<@UBOT> cancel', threadTs: thread });
    const said = visibleText(await waitFor(stack.slack, () => summaryIn(channel, thread), 'the summary', 20_000));
    expect(said).toMatch(/^:no_entry_sign: Cancelled/);
    expect(said).toMatch(/\*Not run:\*\n• Tell the deploys channel/);
    expect(said).toContain('Wait a while — stopped before it finished');
    expect(stack.texts('C1691')).toEqual([]);
  });

  it('reads answer what was asked: mergeability and checks, workflow runs with a link to the rest, the repository; a long model answer follows whole', async () => {
    const channel = 'C1602';
    const pull = stack.github.addPull('acme/api', { title: 'Fix thing', head: 'fix' });
    const number = pull.number;
    const repo = stack.github.repos.get('acme/api')!;
    repo.statuses.set(pull.headSha, [{ context: 'ci/test', state: 'success' }]);
    const at = '2026-11-27T10:00:00Z';
    for (let i = 1; i <= 7; i += 1)
      repo.runs.push({
        ...{ id: 9000 + i, workflowId: 1, name: 'CI', headBranch: 'main', headSha: 'abc', event: 'push', status: 'completed' as const },
        ...{ conclusion: 'success', finalConclusion: 'success', runNumber: i, reads: 0, listsUntilVisible: 0, createdAt: at, updatedAt: at, inputs: {} },
      });
    // 3,600 characters: more than the summary shows, within the 4,000 a step's stored output keeps of a string.
    const notes = Array.from({ length: 80 }, (_, i) => `- change ${i}: ${'detail '.repeat(5)}`).join('\n');
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'is it ready',
      plan('Is it ready', [
        step('s1', 'Is the pull mergeable and green', 'github_get_pull', { repo: 'acme/api', number }),
        step('s2', 'List recent CI runs', 'github_list_workflow_runs', { repo: 'acme/api' }),
        step('s3', 'Read the repository', 'github_get_repo', { repo: 'acme/api' }),
        step('s4', 'Draft the release notes', 'llm_task', { instruction: 'Draft release notes' }, ['s1', 's2', 's3']),
      ]),
    );
    stack.openai.enqueue(openAiReply.json({ text: notes }));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const summary = await waitFor(stack.slack, () => summaryIn(channel, thread), 'the summary', 30_000);
    const said = visibleText(summary);
    expect(said).toMatch(new RegExp(`acme/api#${number} “Fix thing” is open; can be merged; checks passed \\(1\\) — ready to merge`));
    expect(said).toContain('7 workflow runs in acme/api');
    expect(said).toContain('CI #7 on main concluded success');
    expect(JSON.stringify(summary.blocks)).toMatch(/\/acme\/api\/actions\|2 more>/);
    expect(said).toMatch(/acme\/api: (public|private), default branch main/);
    expect(said).toContain('(the whole answer follows below)');
    const wholeAnswer = () =>
      botMessages(stack.slack, channel, thread)
        .filter((m) => m.text.startsWith('The whole answer of “Draft the release notes”'))
        .map((m) => visibleText(m))
        .join('\n');
    await waitFor(stack.slack, () => wholeAnswer().includes('- change 79:'), 'the whole answer, to its last line', 10_000);
    expect(wholeAnswer()).toContain('- change 0:');
  });

  it('a plan left unapproved expires: the summary, /tandem runs and tandem runs say expired, not rejected', async () => {
    const channel = 'C1603';
    const { thread } = await stack.planned(
      channel,
      'U1',
      'tell later',
      plan('Tell C1693', [step('s1', 'Tell C1693', 'slack_notify', { channel: 'C1693', text: 'hi' })]),
    );
    const summary = await waitFor(stack.slack, () => summaryIn(channel, thread), 'the expiry', 30_000);
    expect(summary.text).toMatch(/^:hourglass: Expired: Tell C1693/);
    expect(visibleText(summary)).not.toMatch(/Rejected/);
    const runs = await commandAnswer(stack, 'U1', channel, 'runs');
    const line = runs.split('\n').find((l) => l.includes('tell later'))!;
    expect(line).toMatch(/:hourglass: \*expired\*/);
    const runId = /`(run[_-][A-Za-z0-9_-]+)`/.exec(line)![1]!;
    await stack.tandem.stop(); // an embedded store has one owner at a time
    const cli = runTandem(['runs'], stack.env, stack.cwd);
    expect(await cli.exited).toBe(0);
    expect(
      cli
        .stdout()
        .split('\n')
        .find((l) => l.startsWith(runId)),
    ).toMatch(/^\S+ {2}expired /);
    expect(stack.texts('C1693')).toEqual([]);
  }, 60_000);
});
