import { describe, expect, it } from 'vitest';
import { words, setting } from '../../src/agent/text/text.ts';
import { appHomeView, runLine, statusBlocks } from '../../src/bot/views/app-home.ts';
import { HomeViewSchema, MessageBlocksSchema, ModalViewSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { planningFailedMessage } from '../../src/bot/views/run/planner-unavailable.ts';
import { answerModal, decodeAnswerButton, decodeQuestionRef, QUESTION_ANSWER_ACTION, questionMessage } from '../../src/bot/views/run/question.ts';
import { smallTalkReply } from '../../src/bot/views/help.ts';
import { targetConfirmationMessages } from '../../src/bot/views/run/target-confirmation.ts';
import { makeRun } from '../fakes/slack-fixtures.ts';

const allText = (blocks: readonly unknown[]) => JSON.stringify(blocks);

function expectMessageWithinLimits(blocks: MessageBlock[]) {
  const result = MessageBlocksSchema.safeParse(blocks);
  expect(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
}

describe('question message', () => {
  it('open: asks the requester, escapes the question, has an Answer button that carries the run and the question', () => {
    const view = questionMessage({ runId: 'run_1', asked: 'UREQ', questions: ['Which <env>?'] });
    expectMessageWithinLimits(view.blocks);
    expect(view.text).toBe('<@UREQ> Which &lt;env&gt;?');
    const button = view.blocks.flatMap((b) => (b.type === 'actions' ? b.elements : []))[0]!;
    expect(button.action_id).toBe(QUESTION_ANSWER_ACTION);
    expect(decodeAnswerButton(button.value)).toEqual({ runId: 'run_1', question: 'Which <env>?', asked: 'UREQ' });
  });

  it('answered: says who answered and what, and has no button', () => {
    const view = questionMessage(
      { runId: 'run_1', asked: 'UREQ', questions: ['Which repo?', 'Which branch?'] },
      { by: 'UAPP1', answer: 'acme/api\nmain & <b>' },
    );
    expectMessageWithinLimits(view.blocks);
    expect(allText(view.blocks)).toContain('Answered by <@UAPP1>: acme/api main &amp; &lt;b&gt;');
    expect(view.blocks.some((b) => b.type === 'actions')).toBe(false);
  });

  it('stays within limits for a very long question', () => {
    const long = 'why? '.repeat(2000);
    const view = questionMessage({ runId: 'run_1', asked: 'UREQ', questions: [long] });
    expectMessageWithinLimits(view.blocks);
    const ref = decodeQuestionRef(answerModal({ r: 'run_1', c: 'C1', t: '1.2', q: long }).private_metadata);
    expect(ref?.r).toBe('run_1');
    expect(ModalViewSchema.safeParse(answerModal({ r: 'run_1', c: 'C1', t: '1.2', q: long })).success).toBe(true);
  });
});

describe('planning failure', () => {
  it('says the planner could not make a valid plan without its parser errors', () => {
    const view = planningFailedMessage({
      reason: 'The planner could not produce a valid plan after 2 repair rounds: steps.0.argsJson: Unexpected token } in JSON at position 12',
    });
    expectMessageWithinLimits(view.blocks);
    expect(allText(view.blocks)).toContain('nothing ran');
    expect(allText(view.blocks)).not.toMatch(/argsJson|Unexpected token|position 12/);
  });

  it('names the variables to set in the how-to for a bot with no model (CONTRACT §1)', () => {
    const view = planningFailedMessage({
      reason: words`No planner model is configured: set ${setting('planner-model')} (e.g. openai:gpt-4o) and ${setting('model-key')}.`,
    });
    expect(allText(view.blocks)).toContain('set PLANNER_MODEL (e.g. openai:gpt-4o) and OPENAI_API_KEY (or ANTHROPIC_API_KEY)');
  });
});

describe('/tandem status and App Home', () => {
  const runs = [
    makeRun({ id: 'run_a', status: 'executing', task: 'deploy <api>' }),
    makeRun({ id: 'run_b', status: 'awaiting-approval', requester: 'UOTHER' }),
    makeRun({ id: 'run_c', status: 'succeeded' }),
  ];

  it('status: one line per run with its id, a Slack date token and an Open thread link', () => {
    const blocks = statusBlocks(runs.slice(0, 2), new Map([['run_a', 'https://acme.slack.com/archives/C1/p1700000000000100']]));
    expectMessageWithinLimits(blocks);
    const text = allText(blocks);
    expect(text).toContain('`run_a`');
    expect(text).toContain('deploy &lt;api&gt;');
    const epoch = Math.floor(runs[0]!.createdAt.getTime() / 1000);
    expect(text).toContain(`<!date^${epoch}^{date_short_pretty} at {time}|2026-11-21 22:00 UTC>`);
    expect(text).toContain('"url":"https://acme.slack.com/archives/C1/p1700000000000100"');
    expect(text).toContain('"url":"https://slack.com/archives/C1/p1700000000000100"'); // no permalink: the archive address
    expect(text).not.toMatch(/\d\d:\d\d UTC(?!>)/); // no fixed UTC time outside the token's fallback
    expect(statusBlocks([])).toEqual([expect.objectContaining({ type: 'section' })]);
  });

  it('a run line says the status in words', () => {
    expect(runLine(runs[1]!)).toContain('*waiting for approval*');
    expect(runLine(runs[1]!)).not.toContain('run_b');
  });

  it('App Home: Waiting for you, running, recent and schedules, within limits', () => {
    const view = appHomeView({
      userId: 'UREQ',
      needsYou: [{ run: runs[1]!, what: 'Approve, modify or reject the plan' }],
      runs: [runs[0]!, runs[2]!],
      schedules: [{ task: 'triage <PRs>', channel: 'C1', nextFires: ['Mon, Nov 23, 2026, 09:00 EST'] }],
    });
    expect(HomeViewSchema.safeParse(view).success).toBe(true);
    const text = allText(view.blocks);
    const order = [
      'Waiting for you (1)',
      'Approve, modify or reject the plan',
      'Running',
      'deploy &lt;api&gt;',
      'Recent',
      'run_c',
      'Schedules',
      'triage &lt;PRs&gt;',
    ];
    const at = order.map((part) => text.indexOf(part));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('App Home: a wait handed to the viewer says by whom, and links its own message', () => {
    const view = appHomeView({
      userId: 'UAPP2',
      needsYou: [{ run: runs[1]!, what: 'Decide how the run goes on', handedBy: 'UAPP1', permalink: 'https://fake.slack.test/archives/C1/p1700000000000200' }],
      runs: [],
    });
    expect(HomeViewSchema.safeParse(view).success).toBe(true);
    const text = allText(view.blocks);
    expect(text).toContain('Decide how the run goes on_ — handed to you by <@UAPP1>');
    expect(JSON.stringify(view.blocks)).toContain('"url":"https://fake.slack.test/archives/C1/p1700000000000200"');
  });

  it('App Home stays within limits with many of everything', () => {
    const many = Array.from({ length: 60 }, (_, i) => makeRun({ id: `run_${i}`, task: `task ${'x'.repeat(300)}`, status: i % 2 ? 'executing' : 'failed' }));
    const view = appHomeView({
      userId: 'UREQ',
      needsYou: many.map((run, i) => ({
        run,
        what: 'Answer a question',
        handedBy: `U${'9'.repeat(30)}`,
        permalink: `https://fake.slack.test/archives/C1/p${'1'.repeat(2000)}${i}`,
      })),
      runs: many,
      schedules: many.map((run) => ({ task: run.task, channel: 'C1', nextFires: [] })),
    });
    const parsed = HomeViewSchema.safeParse(view);
    expect(parsed.success ? [] : parsed.error.issues.map((i) => i.message)).toEqual([]);
  });
});

describe('small talk', () => {
  it.each([
    ['hello', 'Hi <@U1>!'],
    ['Hey there!', 'Hi <@U1>!'],
    ['good morning', 'Hi <@U1>!'],
    ['thanks', "You're welcome!"],
    ['Thank you so much!', "You're welcome!"],
  ])('"%s" gets a short answer', (said, start) => {
    expect(smallTalkReply(said, 'U1')).toMatch(new RegExp(`^${start.replace(/[!?]/g, '\\$&')}`));
  });

  it.each(['hello world service is down, check it', 'thanks to the outage, restart acme/api', 'hi-res images on acme/web are broken'])(
    '"%s" is a task',
    (said) => {
      expect(smallTalkReply(said, 'U1')).toBeUndefined();
    },
  );
});

describe('Confirm request', () => {
  it('names the step by its sentence, not its id or tool, and still shows every value in full', () => {
    const [view] = targetConfirmationMessages({
      confirmation: {
        runId: 'run_1',
        planVersion: 1,
        stepId: 's7',
        tool: 'github_merge_pull_request',
        risk: 'destructive',
        targets: { repo: 'acme/api', number: 42 },
        lateBound: ['number'],
        status: 'pending',
        stepTitle: 'Merge the fix',
        decidedBy: null,
        createdAt: new Date(0),
        decidedAt: null,
      },
      escalateTo: undefined,
    });
    expectMessageWithinLimits(view!.blocks);
    expect(view!.text).toBe('Confirm what “Merge the fix” acts on');
    // What a person reads: the block ids and button values carry the step for the click, out of sight.
    const text = JSON.stringify(view!.blocks, (key, value: unknown) => (key === 'block_id' || key === 'value' ? undefined : value));
    expect(text).toContain('Confirm what “Merge the fix”');
    expect(text).not.toMatch(/\bs7\b|github_merge_pull_request/);
    expect(text).toContain('*number* = 42');
  });
});
