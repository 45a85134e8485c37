/**
 * Tools, the Slack flow and the guarantees through Slack's wire: one `tandem start` process, fake Slack / OpenAI / GitHub, each
 * test in its own channel. Expectations come from the product's documented behaviour only.
 */
import { describe, expect, it } from 'vitest';
import { runTandem } from '../cli/tandem-process.ts';
import { stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import {
  BOT_TOKEN,
  GITHUB_TOKEN,
  OPENAI_KEY,
  SIGNING_SECRET,
  botMessages,
  buttonTexts,
  buttonsOf,
  clickByText,
  hasButtons,
  messageWithButtons,
  poll,
  visibleText,
  waitFor,
} from './harness.ts';
import { plan, step } from './plans.ts';
import { ESCALATE, useStack, type Stack } from './stack.ts';
import { commandAnswer } from './slack-answers.ts';

const stack = useStack();
const { slack } = stack;
const planned: Stack['planned'] = (...args) => stack.planned(...args);
const texts: Stack['texts'] = (channel) => stack.texts(channel);
const board: Stack['board'] = (...args) => stack.board(...args);
const boardText: Stack['boardText'] = (...args) => stack.boardText(...args);
/** The summary's fallback text starts with its outcome's emoji. */
const SUMMARY = /^:(white_check_mark|warning|x|octagonal_sign|no_entry_sign|no_good): /;
/** The run whose plan U2 edited in the modal; `tandem show` reads it at the end. */
let modifiedRunId: string | undefined;

describe('a task from a mention, approved in Slack', () => {
  const channel = 'C10';
  let thread: string;
  let planMessage: FakeMessage;

  it('posts the plan in the mention thread: goal, numbered steps as sentences with targets, risk, dependencies in words, Approve/Modify/Reject', async () => {
    stack.github.addIssue('acme/api', { title: 'Release tracking' }); // #1
    ({ thread, planMessage } = await planned(
      channel,
      'U1',
      'open an issue for release 2.0 and check the site',
      plan(
        'File the release 2.0 issue and check the site',
        [
          step('s1', 'Open the release issue', 'github_create_issue', { repo: 'acme/api', title: 'Release 2.0' }),
          step(
            's2',
            'Link it from the tracking issue',
            'github_comment',
            { repo: 'acme/api', number: 1, body: 'Created {{steps.s1.output.url}} as number {{steps.s1.output.number}}' },
            ['s1'],
          ),
          step('s3', 'Check the site', 'http_check', { url: `${stack.targetUrl}/ok`, expectStatus: 200, contains: 'healthy' }),
          step(
            's4',
            'Report the check',
            'slack_notify',
            { channel: 'C90', text: 'status={{steps.s3.output.status}} ok={{steps.s3.output.ok}} latency={{steps.s3.output.latencyMs}}' },
            ['s3'],
          ),
        ],
        { confidence: 0.87 },
      ),
    ));
    expect(planMessage.threadTs ?? planMessage.ts).toBe(thread);
    const shown = visibleText(planMessage);
    expect(shown).toContain('File the release 2.0 issue and check the site');
    expect(shown).toMatch(/1[.)][^\n]*Open the release issue/);
    expect(shown).toMatch(/2[.)][^\n]*Link it from the tracking issue/);
    // Each step names its tool and the plan its confidence (CONTRACT §5); every argument is in the full view (View full plan).
    expect(shown).toContain('github_create_issue');
    expect(shown).toMatch(/confidence 87%/);
    expect(buttonTexts(planMessage)).toContain('View full plan');
    expect(shown).toContain('acme/api'); // targets
    expect(shown).toMatch(/\bwrite\b/i); // risk
    expect(shown).toMatch(/\bread\b/i);
    expect(shown).toMatch(/after “Open the release issue/); // s2 waits for s1, said by its title
    expect(buttonTexts(planMessage)).toEqual(expect.arrayContaining(['Approve', 'Modify', 'Reject']));
  });

  it('a non-approver who clicks Approve gets an ephemeral message saying why, and nothing runs', async () => {
    const before = stack.github.requests.length;
    const response = await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U1');
    expect(response.status).toBe(200);
    const ephemeral = await waitFor(slack, () => slack.model.ephemeralsFor('U1').find((e) => e.channel === channel), 'an ephemeral to U1');
    expect(visibleText(ephemeral).length).toBeGreaterThan(0);
    expect(stack.github.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(stack.github.repos.get('acme/api')!.issues).toHaveLength(1);
    expect(texts('C90')).toEqual([]);
  });

  it('an approver runs it; tool outputs carry url/number (GitHub) and status/ok/latencyMs (http_check)', async () => {
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const comment = await poll(() => stack.github.repos.get('acme/api')!.comments[0], 'the comment on #1', 20_000);
    expect(comment.body).toMatch(/Created https?:\/\/\S+\/issues\/2 as number 2/);
    // TANDEM_ATTRIBUTION (on by default): the closing line says who asked, who approved, the version, its digest and the thread's permalink.
    expect(comment.body).toMatch(
      /\nRequested by `U1` in Slack, approved by `U2` · Tandem plan v1, digest `[0-9a-f]{12}` · \[Slack thread\]\(http\S+\/archives\/[^)]+\)$/,
    );
    const report = await waitFor(slack, () => slack.model.messages.find((m) => m.channel === 'C90'), 'the report in C90', 20_000);
    expect(report.text).toMatch(/status=200 ok=true latency=\d+/);
  });

  it('keeps one status board in the thread, edited in place, never more than once a second', async () => {
    const summaryPosted = () =>
      botMessages(slack, channel, thread).some(
        (m) => m.ts > planMessage.ts && SUMMARY.test(m.text) && m.edits === 0 && m !== board(channel, thread, planMessage.ts),
      );
    await waitFor(slack, summaryPosted, 'the summary', 20_000);
    const theBoard = board(channel, thread, planMessage.ts)!;
    expect(theBoard).toBeDefined();
    const final = visibleText(theBoard);
    // One line per step, naming its state.
    for (const title of ['Open the release issue', 'Link it from the tracking issue', 'Check the site', 'Report the check']) {
      expect(final.split('\n').find((line) => line.includes(title))).toMatch(/\bdone\b/i);
    }
    expect(final).toMatch(/done/i);
    expect(final).toMatch(/issues\/2/); // links to what was made
    expect(final).toMatch(/\d+(\.\d+)?\s*(ms|s|sec)\b/); // elapsed time
    // Only one board: no other message in the thread besides it was edited after approval, except the plan.
    expect(botMessages(slack, channel, thread).filter((m) => m.edits > 0 && m.ts !== planMessage.ts)).toHaveLength(1);
    const updates = slack
      .callsOf('chat.update')
      .filter((c) => c.params.ts === theBoard.ts && c.status === 200)
      .map((c) => c.at);
    expect(updates.length).toBeGreaterThan(1);
    for (let i = 1; i < updates.length; i += 1) expect(updates[i]! - updates[i - 1]!).toBeGreaterThanOrEqual(950);
  });

  it('ends with a summary reply: outcome, the answers asked for, what changed with links; no tokens or ids', async () => {
    const theBoard = board(channel, thread, planMessage.ts)!;
    const summary = botMessages(slack, channel, thread)
      .filter((m) => m.ts > planMessage.ts && m !== theBoard && SUMMARY.test(m.text))
      .at(-1)!;
    const shown = visibleText(summary);
    expect(shown).toMatch(/succeeded|success|done|completed/i);
    expect(shown).toMatch(/https?:\/\/\S+\/issues\/2/);
    expect(shown).toMatch(/answered 200 OK in \d+ ms/); // the check's answer, with its latency
    expect(shown).toMatch(/Opened <[^|>]+\|acme\/api#2>/); // the change in the past tense, linked by what it is
    // Tokens and cost moved to `tandem show` and /metrics (TANDEM_SHOW_COST puts cost back).
    expect(shown).not.toMatch(/\d[\d,]*\s*tokens?/i);
    // Every message about the run went in the mention's thread.
    expect(slack.model.messages.filter((m) => m.channel === channel && m.user === slack.model.bot.userId && m.threadTs !== thread)).toEqual([]);
  });
});

describe('approval rules', () => {
  it('a destructive step needs an approver other than the requester', async () => {
    const pull = stack.github.addPull('acme/api', { title: 'Add feature', head: 'feature' });
    const { planMessage } = await planned(
      'C11',
      'U2',
      `merge pull ${pull.number} of acme/api`,
      plan('Merge the feature pull', [step('s1', 'Merge it', 'github_merge_pull', { repo: 'acme/api', number: pull.number })]),
    );
    expect(visibleText(planMessage)).toMatch(/destructive/i);
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(slack, () => slack.model.ephemeralsFor('U2').find((e) => e.channel === 'C11'), 'an ephemeral to the requester');
    expect(stack.github.requests.filter((r) => r.method === 'PUT')).toEqual([]);
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U3');
    await poll(() => stack.github.repos.get('acme/api')!.pulls.get(pull.number)!.merged, 'the merge', 20_000);
  });

  it('a member of an approver user group (S…) may approve', async () => {
    const { planMessage } = await planned('C37', 'U1', 'tell C82 hi', plan('Say hi', [step('s1', 'Say it', 'slack_notify', { channel: 'C82', text: 'hi' })]));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U5');
    await waitFor(slack, () => texts('C82').includes('hi'), 'the run approved by U5', 15_000);
    expect(slack.model.ephemeralsFor('U5')).toEqual([]);
  });

  it('Reject runs nothing', async () => {
    const { thread, planMessage } = await planned(
      'C23',
      'U1',
      'tell C95 hello',
      plan('Say hello', [step('s1', 'Say it', 'slack_notify', { channel: 'C95', text: 'hello' })]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Reject', 'U2');
    await waitFor(
      slack,
      () => slack.callsOf('chat.update').some((c) => c.params.ts === planMessage.ts) || botMessages(slack, 'C23', thread).length > 1,
      'the rejection shown',
    );
    expect(texts('C95')).toEqual([]);
  });
});

describe('Modify', () => {
  const channel = 'C12';
  let thread: string;
  let planMessage: FakeMessage;
  let view: { id: string; callback_id: string; private_metadata?: string; blocks: unknown[] };
  let yamlBlock: string;

  it('opens a modal with the steps as editable YAML and an "ask the planner" field', async () => {
    ({ thread, planMessage } = await planned(
      channel,
      'U1',
      'check the site',
      plan('Check the site is up', [step('s1', 'Check the site', 'http_check', { url: `${stack.targetUrl}/ok` })]),
    ));
    const viewsBefore = slack.model.views.size;
    await clickByText(stack.tandem.driver, planMessage, 'Modify', 'U2');
    // A modal may open with a placeholder and be filled by views.update; wait for the YAML.
    const opened = await waitFor(slack, () => slack.model.views.size > viewsBefore && [...slack.model.views.values()].at(-1)!, 'views.open').then(() =>
      waitFor(
        slack,
        () => [...slack.model.views.values()].slice(viewsBefore).find((v) => JSON.stringify(v.view).includes('http_check')),
        'the YAML in the modal',
      ),
    );
    view = { id: opened.id, ...(opened.view as { callback_id: string; private_metadata?: string; blocks: unknown[] }) };
    const inputs = view.blocks.filter((b) => (b as { type: string }).type === 'input') as { block_id: string; element: { initial_value?: string } }[];
    const yaml = inputs.find((b) => (b.element.initial_value ?? '').includes('http_check'));
    expect(yaml).toBeDefined();
    yamlBlock = yaml!.block_id;
    expect(inputs.length).toBeGreaterThanOrEqual(2);
  });

  it('invalid YAML comes back as a field error in the modal (response_action: errors)', async () => {
    const response = await stack.tandem.driver.submitView({
      user: 'U2',
      view,
      values: stateFromView(view, { [yamlBlock]: 'steps: [ {id: s1, title: "unclosed' }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ response_action: 'errors', errors: { [yamlBlock]: expect.any(String) } });
  });

  it('an invalid plan (unknown tool) comes back as a field error too', async () => {
    const original = stateFromView(view)[yamlBlock]!;
    const value = Object.values(original)[0]!.value!.replace('http_check', 'no_such_tool');
    const response = await stack.tandem.driver.submitView({ user: 'U2', view, values: stateFromView(view, { [yamlBlock]: value }) });
    expect(response.body).toMatchObject({ response_action: 'errors', errors: { [yamlBlock]: expect.any(String) } });
  });

  it('a valid edit is posted as a new version with what changed', async () => {
    const original = Object.values(stateFromView(view)[yamlBlock]!)[0]!.value!;
    const edited = original.replace('Check the site', 'Check the site twice');
    expect(edited).not.toBe(original);
    const before = botMessages(slack, channel, thread).length;
    const response = await stack.tandem.driver.submitView({ user: 'U2', view, values: stateFromView(view, { [yamlBlock]: edited }) });
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body ?? '')).not.toContain('errors');
    const revised = await waitFor(
      slack,
      () =>
        botMessages(slack, channel, thread)
          .slice(before)
          .find((m) => hasButtons(m, 'Approve') && visibleText(m).includes('Check the site twice')),
      'the revised plan',
    );
    const shown = visibleText(revised);
    expect(shown).toMatch(/v(ersion)?\s*2|#2/i);
    expect(shown).toMatch(/chang|edit|modif/i);
    // Approved, so `tandem show` later has a version by U2, an approval and a step.
    await clickByText(stack.tandem.driver, revised, 'Approve', 'U3');
    await waitFor(
      slack,
      () => botMessages(slack, channel, thread).some((m) => SUMMARY.test(m.text) && /succeeded|done/i.test(visibleText(m))),
      'the edited run to finish',
      20_000,
    );
    const runs = await commandAnswer(stack, 'U1', channel, 'runs');
    modifiedRunId = /\b(run[_-][A-Za-z0-9_-]+)/.exec(runs.split('\n').find((l) => l.includes(`<#${channel}>`)) ?? '')?.[1];
    expect(modifiedRunId, runs).toBeDefined();
  });
});

describe('escalation and Abort', () => {
  const channel = 'C13';
  let thread: string;
  let escalation: FakeMessage;

  it('a failed step escalates in the thread, mentioning TANDEM_ESCALATE_TO, with Retry/Skip/Replan/Abort', async () => {
    let planMessage: FakeMessage;
    ({ thread, planMessage } = await planned(
      channel,
      'U1',
      'announce and check',
      plan(
        'Announce, then check the broken site',
        [
          step('s1', 'Say one', 'slack_notify', { channel: 'C91', text: 'step one done' }),
          step('s2', 'Say two', 'slack_notify', { channel: 'C91', text: 'step two done' }, ['s1']),
          step('s3', 'Check the broken site', 'http_check', { url: `${stack.targetUrl}/broken`, expectStatus: 200 }, ['s2']),
        ],
        {
          rollback: [
            { id: 'r1', title: 'Undo one', tool: 'slack_notify', args: { channel: 'C91', text: 'undo one' } },
            { id: 'r2', title: 'Undo two', tool: 'slack_notify', args: { channel: 'C91', text: 'undo two' } },
          ],
        },
      ),
    ));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
    expect(visibleText(escalation)).toContain(`<!subteam^${ESCALATE}>`);
    expect(visibleText(escalation)).toMatch(/Check the broken site|500|s3/);
  });

  it('Abort runs the rollback steps for what succeeded in reverse order and the summary says aborted and what was rolled back', async () => {
    expect(texts('C91')).toEqual(['step one done', 'step two done']);
    await clickByText(stack.tandem.driver, escalation, 'Abort', 'U2');
    await waitFor(slack, () => texts('C91').length >= 4, 'the rollback', 20_000);
    expect(texts('C91')).toEqual(['step one done', 'step two done', 'undo two', 'undo one']);
    await waitFor(
      slack,
      () => botMessages(slack, channel, thread).some((m) => /abort/i.test(visibleText(m)) && /roll/i.test(visibleText(m)) && /Undo/.test(visibleText(m))),
      'the aborted summary',
      20_000,
    );
  });

  it('a plan below TANDEM_CONFIDENCE_THRESHOLD escalates instead of acting', async () => {
    stack.openai.enqueue(
      openAiReply.json(plan('Maybe restart things', [step('s1', 'Say maybe', 'slack_notify', { channel: 'C96', text: 'maybe' })], { confidence: 0.3 })),
    );
    const sent = stack.tandem.driver.mention({ channel: 'C14', user: 'U1', text: '<@UBOT> do something vague' });
    await sent;
    const escalation = await waitFor(
      slack,
      () => botMessages(slack, 'C14', sent.ts).find((m) => visibleText(m).includes(`<!subteam^${ESCALATE}>`)),
      'a low-confidence escalation',
      20_000,
    );
    expect(buttonTexts(escalation)).toEqual(['Approve anyway', 'Modify', 'Reject', 'Reassign']);
    expect(visibleText(escalation)).toContain('The planner is not confident in this plan');
    expect(visibleText(escalation)).not.toMatch(/0\.30|threshold|TANDEM_CONFIDENCE_THRESHOLD/);
    expect(texts('C96')).toEqual([]);
  });
});

describe('follow-ups in a run thread', () => {
  it('"cancel" stops the run: no further step starts and the board ends cancelled', async () => {
    const { thread, planMessage } = await planned(
      'C15',
      'U1',
      'wait then tell',
      plan('Wait, then tell C92', [
        step('s1', 'Wait a bit', 'wait', { seconds: 2 }),
        step('s2', 'Tell C92', 'slack_notify', { channel: 'C92', text: 'after wait' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(slack, () => board('C15', thread, planMessage.ts), 'the board', 15_000);
    await stack.tandem.driver.mention({ channel: 'C15', user: 'U2', text: '<@UBOT> cancel', threadTs: thread });
    await waitFor(slack, () => /^cancelled/i.test(boardText('C15', thread, planMessage.ts)), 'the board to end cancelled', 15_000);
    // s1 would have finished by now; s2 must not have started.
    await stack.tandem.untilIdle();
    expect(texts('C92')).toEqual([]);
  });

  it('a mention in the thread from an approver answers ask_human: output { answer, answeredBy }', async () => {
    const { thread, planMessage } = await planned(
      'C16',
      'U1',
      'ask then tell',
      plan('Ask for a tag, then tell C93', [
        step('s1', 'Ask for the tag', 'ask_human', { question: 'Which tag should I release?' }),
        step('s2', 'Tell C93', 'slack_notify', { channel: 'C93', text: 'tag={{steps.s1.output.answer}} by {{steps.s1.output.answeredBy}}' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(
      slack,
      () => botMessages(slack, 'C16', thread).some((m) => m.ts > planMessage.ts && visibleText(m).includes('Which tag should I release?')),
      'the question',
      15_000,
    );
    // U4 is neither the requester nor an approver: the answer is refused and the run keeps waiting.
    await stack.tandem.driver.mention({ channel: 'C16', user: 'U4', text: '<@UBOT> v6.6.6', threadTs: thread });
    await stack.tandem.driver.mention({ channel: 'C16', user: 'U3', text: '<@UBOT> v1.2.3', threadTs: thread });
    const told = await waitFor(slack, () => slack.model.messages.find((m) => m.channel === 'C93'), 'the answer used', 15_000);
    expect(told.text).toMatch(/tag=.*v1\.2\.3.* by U3/);
    expect(told.text).not.toContain('v6.6.6');
  });

  it('a plan with questions and no steps asks the requester in the thread instead of acting', async () => {
    stack.openai.enqueue(openAiReply.json({ goal: 'Unclear', confidence: 0.9, steps: [], rollback: [], questions: ['Which repository do you mean?'] }));
    const sent = stack.tandem.driver.mention({ channel: 'C17', user: 'U1', text: '<@UBOT> release it' });
    await sent;
    const asked = await waitFor(
      slack,
      () => botMessages(slack, 'C17', sent.ts).find((m) => visibleText(m).includes('Which repository do you mean?')),
      'the question',
      15_000,
    );
    expect(buttonTexts(asked)).not.toContain('Approve');
    expect(visibleText(asked)).toContain('<@U1>'); // asks the requester
  });
});

describe('GitHub tool outputs', () => {
  it('github_dispatch_workflow gives runId, url and conclusion; github_get_pull gives url and number', async () => {
    stack.github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', pollsPerPhase: 0 });
    const pull = stack.github.addPull('acme/api', { title: 'Read me', head: 'read-me' });
    const { planMessage } = await planned(
      'C18',
      'U1',
      'deploy and read the pull',
      plan('Deploy and read a pull', [
        step('s1', 'Deploy', 'github_dispatch_workflow', { repo: 'acme/api', workflow: 'deploy.yml', ref: 'main' }),
        step(
          's2',
          'Tell the run',
          'slack_notify',
          { channel: 'C94', text: 'run={{steps.s1.output.runId}} url={{steps.s1.output.url}} conclusion={{steps.s1.output.conclusion}}' },
          ['s1'],
        ),
        step('s3', 'Read the pull', 'github_get_pull', { repo: 'acme/api', number: pull.number }),
        step('s4', 'Tell the pull', 'slack_notify', { channel: 'C97', text: 'pull={{steps.s3.output.number}} url={{steps.s3.output.url}}' }, ['s3']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const run = await waitFor(slack, () => slack.model.messages.find((m) => m.channel === 'C94'), 'the dispatch report', 30_000);
    expect(run.text).toMatch(/run=\d+ url=https?:\/\/\S+ conclusion=success/);
    const read = await waitFor(slack, () => slack.model.messages.find((m) => m.channel === 'C97'), 'the pull report', 30_000);
    expect(read.text).toMatch(new RegExp(`pull=${pull.number} url=https?://\\S+/pull/${pull.number}`));
  });
});

describe('more GitHub tool outputs', () => {
  it('github_get_repo, github_create_release and github_comment give the web url', async () => {
    const { planMessage } = await planned(
      'C36',
      'U1',
      'release 9.9.9 and say so',
      plan('Cut release 9.9.9', [
        step('s1', 'Read the repo', 'github_get_repo', { repo: 'acme/api' }),
        step('s2', 'Create the release', 'github_create_release', { repo: 'acme/api', tag: 'v9.9.9' }),
        step('s3', 'Comment on the tracking issue', 'github_comment', { repo: 'acme/api', number: 1, body: 'released' }),
        step(
          's4',
          'Say so',
          'slack_notify',
          { channel: 'C83', text: 'repo={{steps.s1.output.url}} release={{steps.s2.output.url}} comment={{steps.s3.output.url}}' },
          ['s1', 's2', 's3'],
        ),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const said = await waitFor(slack, () => slack.model.messages.find((m) => m.channel === 'C83'), 'the report', 20_000);
    expect(said.text).toMatch(/repo=https?:\/\/\S+\/acme\/api release=https?:\/\/\S+v9\.9\.9\S* comment=https?:\/\/\S+\/issues\/1#issuecomment-\d+/);
  });
});

describe('uncertain side effects and Retry', () => {
  it('a write whose answer was lost is reconciled against GitHub or escalated, never repeated blindly', async () => {
    stack.github.addRepo('acme/flaky');
    stack.github.fault({ method: 'POST', path: /\/repos\/acme\/flaky\/issues$/, drop: true, afterEffect: true });
    const { thread, planMessage } = await planned(
      'C26',
      'U1',
      'file a flaky issue',
      plan('File an issue on a flaky GitHub', [step('s1', 'File it', 'github_create_issue', { repo: 'acme/flaky', title: 'Flaky one' })]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(
      slack,
      () => /succeeded/i.test(boardText('C26', thread, planMessage.ts)) || messageWithButtons(slack, 'C26', thread, 'Retry', 'Skip', 'Replan', 'Abort'),
      'the write reconciled or escalated',
      30_000,
    );
    expect(stack.github.repos.get('acme/flaky')!.issues).toHaveLength(1);
  });

  it('Retry on an escalation runs the failed step again', async () => {
    let healthy = false;
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => void res.writeHead(healthy ? 200 : 503).end(healthy ? 'up' : 'down'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const { thread, planMessage } = await planned(
        'C27',
        'U1',
        'check then tell',
        plan('Check a recovering site, then tell C89', [
          step('s1', 'Check it', 'http_check', { url, expectStatus: 200 }),
          step('s2', 'Tell C89', 'slack_notify', { channel: 'C89', text: 'recovered' }, ['s1']),
        ]),
      );
      await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
      const escalation = await waitFor(slack, () => messageWithButtons(slack, 'C27', thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
      healthy = true;
      await clickByText(stack.tandem.driver, escalation, 'Retry', 'U2');
      await waitFor(slack, () => texts('C89').includes('recovered'), 'the run to go on after Retry', 20_000);
    } finally {
      server.close();
    }
  });

  it('a rate-limited chat.update (429) still leaves the board current at the end', async () => {
    slack.rateLimit('chat.update', 2, 1);
    const { thread, planMessage } = await planned(
      'C28',
      'U1',
      'two quick notes',
      plan('Two quick notes', [
        step('s1', 'Note one', 'slack_notify', { channel: 'C88', text: 'one' }),
        step('s2', 'Note two', 'slack_notify', { channel: 'C88', text: 'two' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(
      slack,
      () => /succeeded/i.test(boardText('C28', thread, planMessage.ts)) && /2\/2|Note two[^\n]*done/i.test(boardText('C28', thread, planMessage.ts)),
      'the final board',
      30_000,
    );
  });
});

describe('Skip, Replan and the model-backed steps', () => {
  it('Skip on an escalation leaves the failed step skipped and the run goes on', async () => {
    const { thread, planMessage } = await planned(
      'C29',
      'U1',
      'check broken then note',
      plan('Check a broken site, and note it', [
        step('s1', 'Check broken', 'http_check', { url: `${stack.targetUrl}/down`, expectStatus: 200 }),
        step('s2', 'Note it', 'slack_notify', { channel: 'C87', text: 'noted' }),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, 'C29', thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
    await clickByText(stack.tandem.driver, escalation, 'Skip', 'U2');
    await waitFor(
      slack,
      () =>
        /skipped/i.test(boardText('C29', thread, planMessage.ts)) &&
        texts('C87').includes('noted') &&
        botMessages(slack, 'C29', thread).some((m) => SUMMARY.test(m.text)),
      'the run to end with s1 skipped',
      20_000,
    );
  });

  it('Replan on an escalation asks the planner again and posts the new plan as a new version', async () => {
    const { thread, planMessage } = await planned(
      'C32',
      'U1',
      'check broken',
      plan('Check a broken site', [step('s1', 'Check broken', 'http_check', { url: `${stack.targetUrl}/down`, expectStatus: 200 })]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, 'C32', thread, 'Retry', 'Skip', 'Replan', 'Abort'), 'the escalation', 20_000);
    const requests = stack.openai.requests.length;
    stack.openai.enqueue(
      openAiReply.json(plan('Check the healthy site instead', [step('s1', 'Check healthy', 'http_check', { url: `${stack.targetUrl}/ok` })])),
    );
    await clickByText(stack.tandem.driver, escalation, 'Replan', 'U2');
    const revised = await waitFor(
      slack,
      () => botMessages(slack, 'C32', thread).find((m) => m.ts !== planMessage.ts && visibleText(m).includes('Check the healthy site instead')),
      'the new plan version',
      20_000,
    );
    expect(visibleText(revised)).toMatch(/v(ersion)?\s*2|#2/i);
    expect(stack.openai.requests.length).toBe(requests + 1);
  });

  it('the Modify modal\'s "ask the planner" field asks the planner for a new version', async () => {
    const { thread, planMessage } = await planned(
      'C33',
      'U1',
      'note something',
      plan('Note something', [step('s1', 'Note it', 'slack_notify', { channel: 'C86', text: 'first' })]),
    );
    const viewsBefore = slack.model.views.size;
    await clickByText(stack.tandem.driver, planMessage, 'Modify', 'U2');
    const opened = await waitFor(
      slack,
      () => [...slack.model.views.values()].slice(viewsBefore).find((v) => JSON.stringify(v.view).includes('slack_notify')),
      'the modal',
    );
    const view = { id: opened.id, ...(opened.view as { callback_id: string; private_metadata?: string; blocks: unknown[] }) };
    const inputs = view.blocks.filter((b) => (b as { type: string }).type === 'input') as { block_id: string; element: { initial_value?: string } }[];
    const askBlock = inputs.find((b) => !(b.element.initial_value ?? '').includes('slack_notify'))!;
    expect(askBlock).toBeDefined();
    stack.openai.enqueue(openAiReply.json(plan('Note something louder', [step('s1', 'Note it loudly', 'slack_notify', { channel: 'C86', text: 'FIRST' })])));
    const response = await stack.tandem.driver.submitView({ user: 'U2', view, values: stateFromView(view, { [askBlock.block_id]: 'make it louder' }) });
    expect(JSON.stringify(response.body ?? '')).not.toContain('errors');
    await waitFor(
      slack,
      () => botMessages(slack, 'C33', thread).find((m) => m.ts !== planMessage.ts && hasButtons(m, 'Approve') && visibleText(m).includes('Note it loudly')),
      "the planner's new version",
      20_000,
    );
    expect(JSON.stringify(stack.openai.requests.at(-1)!.body)).toContain('make it louder');
  });
});

describe('the executor model', () => {
  it("llm_task runs on the planner's provider when EXECUTOR_MODEL is not set", async () => {
    const { thread, planMessage } = await planned(
      'C34',
      'U1',
      'write a greeting and post it',
      plan('Write a greeting and post it', [
        step('s1', 'Write the greeting', 'llm_task', { instruction: 'Write a one-line greeting for the team' }),
        step('s2', 'Post it', 'slack_notify', { channel: 'C84', text: 'posted' }, ['s1']),
      ]),
    );
    const requests = stack.openai.requests.length;
    // A real server honours the request's response_format; answer in the JSON schema the request asked for.
    stack.openai.enqueue(openAiReply.json({ text: 'Hello team, have a good day!' }));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(
      slack,
      () => /succeeded/i.test(boardText('C34', thread, planMessage.ts)) || messageWithButtons(slack, 'C34', thread, 'Retry'),
      'the run to end',
      20_000,
    );
    expect(stack.openai.requests.length).toBe(requests + 1);
    const body = stack.openai.requests.at(-1)!.body as { model?: string };
    expect(body.model).toBe('gpt-4o');
    expect(texts('C84')).toEqual(['posted']);
  });
});

describe('/tandem', () => {
  it('help lists the verbs', async () => {
    const answer = await commandAnswer(stack, 'U1', 'C20', 'help');
    for (const verb of ['status', 'runs', 'cancel']) expect(answer).toContain(verb);
  });

  it('runs lists recent runs and status answers', async () => {
    const posted = slack.model.messages.length;
    const runs = await commandAnswer(stack, 'U1', 'C20', 'runs');
    expect(runs).toMatch(/two quick notes|Two quick notes/);
    // "Your runs" is personal: not posted for the whole channel to see.
    expect(slack.model.messages.slice(posted).filter((m) => m.channel === 'C20')).toEqual([]);
    const status = await commandAnswer(stack, 'U1', 'C20', 'status');
    expect(status.length).toBeGreaterThan(0);
  });

  it('cancel <runId> stops a running run', async () => {
    const { thread, planMessage } = await planned(
      'C21',
      'U1',
      'wait long then tell',
      plan('Wait long, then tell C98', [
        step('s1', 'Wait long', 'wait', { seconds: 2 }),
        step('s2', 'Tell C98', 'slack_notify', { channel: 'C98', text: 'too late' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(slack, () => board('C21', thread, planMessage.ts), 'the board');
    const runs = await commandAnswer(stack, 'U1', 'C21', 'runs');
    const line = runs.split('\n').find((l) => /Wait long, then tell C98|wait long then tell/.test(l));
    const runId = /\b(run[_-][A-Za-z0-9_-]+)/.exec(line ?? '')?.[1];
    expect(runId, `a run id in: ${runs}`).toBeDefined();
    await commandAnswer(stack, 'U1', 'C21', `cancel ${runId}`);
    await waitFor(slack, () => /^cancelled/i.test(boardText('C21', thread, planMessage.ts)), 'the board to end cancelled', 15_000);
    await stack.tandem.untilIdle(); // s1 would have ended by now: s2 must not start
    expect(texts('C98')).toEqual([]);
  });
});

describe('guarantees (§6)', () => {
  it('a Slack event delivered twice starts one run', async () => {
    const requestsBefore = stack.openai.requests.length;
    stack.openai.enqueue(openAiReply.json(plan('Say twice-once', [step('s1', 'Say it', 'slack_notify', { channel: 'C99', text: 'once' })])));
    const eventId = 'EvDUPLICATE0001';
    const sent = stack.tandem.driver.mention({ channel: 'C19', user: 'U1', text: '<@UBOT> say it once', eventId });
    await sent;
    const event = { type: 'app_mention', user: 'U1', text: '<@UBOT> say it once', ts: sent.ts, channel: 'C19', event_ts: sent.ts };
    expect((await stack.tandem.driver.event(event, { eventId, retryNum: 1 })).status).toBe(200);
    await waitFor(slack, () => messageWithButtons(slack, 'C19', sent.ts, 'Approve'), 'the plan');
    // A later, different task is planned: by then a second run of the duplicate would have shown.
    await planned('C19b', 'U1', 'barrier', plan('Barrier', [step('s1', 'Say', 'slack_notify', { channel: 'C99', text: 'x' })]));
    expect(botMessages(slack, 'C19', sent.ts).filter((m) => hasButtons(m, 'Approve'))).toHaveLength(1);
    expect(stack.openai.requests.length - requestsBefore).toBe(2);
    expect(stack.openai.problems).toEqual([]);
  });

  it('the same event delivered twice at once still starts one run', async () => {
    stack.openai.enqueue(openAiReply.json(plan('Say at once', [step('s1', 'Say it', 'slack_notify', { channel: 'C81', text: 'once' })])));
    const message = slack.model.addUserMessage({ channel: 'C38', user: 'U1', text: '<@UBOT> say it at once' });
    const event = { type: 'app_mention', user: 'U1', text: message.text, ts: message.ts, channel: 'C38', event_ts: message.ts };
    const answers = await Promise.all([
      stack.tandem.driver.event(event, { eventId: 'EvCONCURRENT01' }),
      stack.tandem.driver.event(event, { eventId: 'EvCONCURRENT01', retryNum: 1 }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const planMessage = await waitFor(slack, () => messageWithButtons(slack, 'C38', message.ts, 'Approve'), 'the plan');
    await planned('C38b', 'U1', 'barrier', plan('Barrier', [step('s1', 'Say', 'slack_notify', { channel: 'C81', text: 'x' })]));
    expect(botMessages(slack, 'C38', message.ts).filter((m) => hasButtons(m, 'Approve'))).toHaveLength(1);
    expect(stack.openai.problems).toEqual([]);
    // An Approve click delivered twice at once runs the step once.
    await Promise.all([clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2'), clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2')]);
    await waitFor(slack, () => botMessages(slack, 'C38', message.ts).some((m) => SUMMARY.test(m.text)), 'the summary', 15_000);
    expect(texts('C81').filter((t) => t === 'once')).toEqual(['once']);
  });

  it('a forged Approve click gets 401 and approves nothing', async () => {
    const { thread, planMessage } = await planned(
      'C39',
      'U1',
      'tell C80',
      plan('Tell C80', [step('s1', 'Tell it', 'slack_notify', { channel: 'C80', text: 'forged?' })]),
    );
    const button = buttonsOf(planMessage).find((b) => b.text === 'Approve')!;
    const click = {
      user: 'U2',
      channel: 'C39',
      messageTs: planMessage.ts,
      threadTs: thread,
      actionId: button.actionId,
      value: button.value,
      blockId: button.blockId,
    };
    expect((await stack.tandem.driver.click(click, { signingSecret: 'not-the-secret' })).status).toBe(401);
    expect((await stack.tandem.driver.click(click, { timestampS: Math.floor(Date.now() / 1000) - 600 })).status).toBe(401);
    // Barrier: a genuine Reject afterwards is served; nothing ran in between.
    const updates = () => slack.callsOf('chat.update').filter((c) => c.params.ts === planMessage.ts).length;
    const before = updates();
    await clickByText(stack.tandem.driver, planMessage, 'Reject', 'U2');
    await waitFor(slack, () => updates() > before || botMessages(slack, 'C39', thread).length > 1, 'the rejection shown', 10_000);
    expect(texts('C80')).toEqual([]);
  });

  it('bad or stale signatures get 401 and change nothing', async () => {
    const callsBefore = slack.calls.length;
    const requestsBefore = stack.openai.requests.length;
    const forged = await stack.tandem.driver.mention({ channel: 'C24', user: 'U1', text: '<@UBOT> forged' }, { signingSecret: 'wrong-secret' });
    expect(forged.status).toBe(401);
    const stale = await stack.tandem.driver.mention({ channel: 'C24', user: 'U1', text: '<@UBOT> stale' }, { timestampS: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(401);
    const command = await stack.tandem.driver.command({ user: 'U1', channel: 'C24', text: 'runs' }, { signingSecret: 'wrong-secret' });
    expect(command.status).toBe(401);
    // Barrier: a signed request afterwards is served, and nothing of the forged ones happened in between.
    await commandAnswer(stack, 'U1', 'C25', 'help');
    expect(slack.calls.slice(callsBefore).filter((c) => c.params.channel === 'C24')).toEqual([]);
    expect(stack.openai.requests.length).toBe(requestsBefore);
  });

  it('GET /healthz answers 200', async () => {
    const response = await fetch(`${stack.tandem.baseUrl}/healthz`);
    expect(response.status).toBe(200);
  });

  it('GET /metrics is Prometheus text with runs by outcome and steps by tool and status, and no secret', async () => {
    const response = await fetch(`${stack.tandem.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await response.text();
    expect(body).toMatch(/^# TYPE \w+ (counter|gauge)/m);
    expect(body).toMatch(/^\w+\{[^}]*outcome="succeeded"[^}]*\} \d+/m);
    expect(body).toMatch(/^\w+\{(?=[^}]*tool="slack_notify")(?=[^}]*status="\w+")[^}]*\} \d+/m);
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, OPENAI_KEY, GITHUB_TOKEN]) expect(body).not.toContain(secret);
  });

  it('no secret appears in the logs or in anything sent to the model', () => {
    const logs = stack.tandem.tandem.stdout() + stack.tandem.tandem.stderr();
    expect(logs.length).toBeGreaterThan(0);
    const prompts = JSON.stringify(stack.openai.requests.map((r) => r.body));
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, OPENAI_KEY, GITHUB_TOKEN]) {
      expect(logs).not.toContain(secret);
      expect(prompts).not.toContain(secret);
    }
  });

  it('answered every Slack request within 3 s', () => {
    const timings = stack.tandem.driver.timings;
    expect(timings.length).toBeGreaterThan(20);
    expect(Math.max(...timings.map((t) => t.ms))).toBeLessThan(3000);
  });
});

describe('restart and the operator CLI', () => {
  it('a restart mid-run continues from the store without repeating a write', async () => {
    const { thread, planMessage } = await planned(
      'C22',
      'U1',
      'file, wait, comment',
      plan('File an issue, wait, comment on it', [
        step('s1', 'File the issue', 'github_create_issue', { repo: 'acme/restart', title: 'Restart me' }),
        step('s2', 'Wait a while', 'wait', { seconds: 2 }, ['s1']),
        step('s3', 'Comment on it', 'github_comment', { repo: 'acme/restart', number: 1, body: 'after restart' }, ['s2']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const repo = stack.github.repos.get('acme/restart')!;
    await poll(() => repo.issues.length === 1, 'the issue', 15_000);
    await waitFor(
      slack,
      () => /1\/3|Wait a while[^\n]*running|running[^\n]*Wait a while/i.test(boardText('C22', thread, planMessage.ts)),
      'the board past s1',
      15_000,
    );
    expect(await stack.tandem.stop()).toBe(0);
    await stack.restart();
    await poll(() => repo.comments.length === 1, 'the comment after restart', 30_000);
    await waitFor(slack, () => /succeeded/i.test(boardText('C22', thread, planMessage.ts)), 'the board to end succeeded', 15_000);
    expect(repo.issues).toHaveLength(1);
    expect(stack.github.requests.filter((r) => r.method === 'POST' && r.path === '/repos/acme/restart/issues')).toHaveLength(1);
    expect(repo.comments.map((c) => c.body)).toEqual([expect.stringContaining('after restart')]);
  }, 90_000);

  it('a plan that fails validation (a dependsOn cycle) is never executed', async () => {
    const cyclic = plan('Go round in circles', [
      step('s1', 'First', 'slack_notify', { channel: 'C85', text: 'one' }, ['s2']),
      step('s2', 'Second', 'slack_notify', { channel: 'C85', text: 'two' }, ['s1']),
    ]);
    stack.openai.enqueue(openAiReply.json(cyclic), openAiReply.json(cyclic), openAiReply.json(cyclic));
    const sent = stack.tandem.driver.mention({ channel: 'C35', user: 'U1', text: '<@UBOT> go round in circles' });
    await sent;
    await waitFor(
      slack,
      () => botMessages(slack, 'C35', sent.ts).some((m) => /cycle|circular|invalid|could ?n[o']t|failed|error/i.test(visibleText(m))),
      'the planner to give up',
      30_000,
    );
    expect(botMessages(slack, 'C35', sent.ts).filter((m) => hasButtons(m, 'Approve'))).toEqual([]);
    expect(texts('C85')).toEqual([]);
  });

  it('tandem runs --limit N lists N runs', async () => {
    await stack.tandem.stop(); // an embedded store has one owner at a time
    const cli = runTandem(['runs', '--limit', '2'], stack.env, stack.cwd);
    expect(await cli.exited).toBe(0);
    const ids = new Set(cli.stdout().match(/\brun[_-][A-Za-z0-9_-]+/g) ?? []);
    expect(ids.size, cli.stdout()).toBe(2);
  }, 30_000);

  it('tandem show <runId> shows each plan version with its author (planner, U…), approvals, steps and events', async () => {
    expect(modifiedRunId).toBeDefined();
    const cli = runTandem(['show', modifiedRunId!], stack.env, stack.cwd);
    expect(await cli.exited).toBe(0);
    const out = cli.stdout();
    expect(out).toMatch(/planner/i);
    expect(out).toContain('U2');
    expect(out).toMatch(/v(ersion)?\s*1/i);
    expect(out).toMatch(/v(ersion)?\s*2/i);
    expect(out).toMatch(/approv/i);
    expect(out).toContain('U3');
    expect(out).toContain('Check the site twice');
    expect(out).toMatch(/event/i);
  }, 30_000);
});
