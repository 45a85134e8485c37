/**
 * The board (plan block and sections) and the summary in each state of a run, drawn from step records the
 * way the agent draws them (buildBoard, runOutcome, stepResult): plain data in, blocks out, within Slack's
 * limits. Each `false statement` test is one of issue 29's, which today's main made.
 */
import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { buildBoard } from '../../src/agent/delivery/board.ts';
import { runOutcome, type OutcomeStep } from '../../src/agent/model/run-outcome.ts';
import { stepResult } from '../../src/agent/model/step-results.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunRecord, RunStatus, StepRecord } from '../../src/agent/ports/run-store.ts';
import type { BoardState, RunSummary } from '../../src/agent/ports/surface.ts';
import { SKIPPED_BY_PERSON } from '../../src/agent/model/step-codes.ts';
import { madeItsChange } from '../../src/agent/model/step-change.ts';
import { MessageBlocksSchema, type MessageBlock, type MessageView } from '../../src/bot/views/limits.ts';
import { planBoard } from '../../src/bot/views/run/plan-board.ts';
import { CANCEL_RUN_ACTION, statusBoard } from '../../src/bot/views/run/status-board.ts';
import { summaryMessage } from '../../src/bot/views/run/summary.ts';
import { encodeTryAgain, PLANNER_TRY_AGAIN_ACTION } from '../../src/bot/views/run/planner-unavailable.ts';
import { makeRun } from '../fakes/slack-fixtures.ts';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 26, 22, 0, seconds));

function within(view: MessageView): MessageView {
  const result = MessageBlocksSchema.safeParse(view.blocks);
  expect(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
  expect(view.text.length).toBeLessThanOrEqual(4000);
  return view;
}
const text = (view: MessageView) => JSON.stringify(view.blocks);
/** What a person reads: the blocks without the values buttons carry back to the app. */
const visible = (view: MessageView) => JSON.stringify(view.blocks, (key, value: unknown) => (key === 'value' ? undefined : value));
const planTitle = (view: MessageView) => (view.blocks.find((b): b is types.PlanBlock => b.type === 'plan') ?? { title: '' }).title;
const cards = (view: MessageView) => (view.blocks.find((b): b is types.PlanBlock => b.type === 'plan')?.tasks ?? []) as types.TaskCardBlock[];
const headerOf = (view: MessageView) => JSON.stringify(view.blocks[0]);
const hasCancel = (view: MessageView) => text(view).includes(CANCEL_RUN_ACTION);

const plan: Plan = {
  schemaVersion: 1,
  goal: 'Check the site and note it',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Check that /missing answers with HTTP 200', tool: 'http_check', args: { url: 'https://site.test/missing' }, dependsOn: [] },
    { id: 's2', title: 'Open an issue', tool: 'github_create_issue', args: { repo: 'acme/api', title: 'Flaky test' }, dependsOn: ['s1'] },
  ],
  rollback: [{ id: 'r1', title: 'Close the issue', tool: 'github_close_issue', args: {}, undoes: 's2' }],
};

function record(stepId: string, status: StepRecord['status'], more: Partial<StepRecord> = {}): StepRecord {
  const planned = plan.steps.find((s) => s.id === stepId) ?? plan.rollback.find((s) => s.id === stepId)!;
  return {
    runId: 'run_1',
    planVersion: 1,
    stepId,
    kind: 'forward',
    title: planned.title,
    tool: planned.tool,
    risk: planned.tool === 'http_check' ? 'read' : 'write',
    dependsOn: [],
    plannedArgs: planned.args,
    status,
    attempt: 1,
    output: null,
    error: null,
    startedAt: status === 'pending' ? null : at(0),
    finishedAt: status === 'pending' || status === 'running' ? null : at(0),
    leaseOwner: null,
    leaseUntil: null,
    ...more,
  };
}

const missing = { url: 'https://site.test/missing', status: 404, ok: false, latencyMs: 12 };
const healthy = { url: 'https://site.test/health', status: 200, ok: true, latencyMs: 41 };
const opened = { number: 42, url: 'https://github.com/acme/api/issues/42', title: 'Flaky test' };

function board(status: RunStatus, steps: StepRecord[], extras: Parameters<typeof buildBoard>[6] = {}): BoardState {
  const run: RunRecord = makeRun({
    status,
    finishedAt: ['succeeded', 'failed', 'aborted', 'cancelled', 'rejected'].includes(status) ? at(5) : null,
    createdAt: at(0),
  });
  return buildBoard(run, 1, plan, steps, at(5), undefined, extras);
}

/** Both drawings of a board, each within Slack's limits. */
const drawn = (state: BoardState) => ({ plan: within(planBoard(state)!), sections: within(statusBoard(state)) });

function summaryOf(status: RunSummary['outcome'], steps: StepRecord[], more: Partial<RunSummary> = {}): RunSummary {
  const verdict = runOutcome(
    status,
    steps.map((step): OutcomeStep => ({
      title: step.title,
      kind: step.kind,
      status: step.error?.code === SKIPPED_BY_PERSON ? 'skipped' : step.status,
      madeChange: madeItsChange(step),
      key: `1/${step.stepId}`,
      ...(step.kind === 'rollback' ? { undoes: '1/s2' } : {}),
    })),
  );
  const results = steps.flatMap((step) => {
    if (step.kind !== 'forward' || !step.output) return [];
    const found = stepResult({ tool: step.tool, title: step.title, args: step.plannedArgs, output: step.output });
    return found && (step.risk === 'read' || step.status === 'succeeded') ? [found] : [];
  });
  return {
    run: makeRun({ status, createdAt: at(0), finishedAt: at(0) }),
    outcome: status,
    goal: plan.goal,
    reason: null,
    changes: [],
    rolledBack: steps.filter((s) => s.kind === 'rollback').map((s) => ({ title: s.title, status: s.status })),
    durationMs: 400,
    tokens: { input: 0, output: 0 },
    costUsd: 0,
    verdict,
    results,
    ...more,
  };
}

describe('status board, in each state', () => {
  it('running: "Running", the step running in progress, the one not started pending, Cancel run offered, no "0s"', () => {
    const { plan: view, sections } = drawn(board('executing', [record('s1', 'running'), record('s2', 'pending')]));
    expect(planTitle(view)).toBe('Running: Check the site and note it');
    expect(cards(view).map((c) => c.status)).toEqual(['in_progress', 'pending']);
    expect(hasCancel(view) && hasCancel(sections)).toBe(true);
    expect(text(view)).not.toMatch(/\b0s\b/);
    expect(visible(sections)).not.toContain('run_1');
    // Cancel run asks first, in Slack's confirmation dialog (plain text, within its limits).
    const cancel = sections.blocks.flatMap((b) => (b.type === 'actions' ? b.elements : [])).find((e) => e.action_id === CANCEL_RUN_ACTION)!;
    const dialog = cancel.confirm as types.ConfirmationDialog;
    expect(dialog.title?.text).toBe('Cancel this run?');
    expect(dialog.text?.type).toBe('plain_text');
    expect(dialog.text!.text.length).toBeLessThanOrEqual(300);
    expect(cancel.value).toBe('run_1');
  });

  it('false statement: the title said "Running" at 2/2 steps while checks ran', () => {
    const { plan: view, sections } = drawn(board('executing', [record('s1', 'succeeded', { output: healthy }), record('s2', 'succeeded', { output: opened })]));
    expect(planTitle(view)).toMatch(/^Checking the results/);
    expect(headerOf(sections)).toContain('Checking the results');
  });

  it('false statement: a step waiting for a Confirm said "waiting for an answer" — it says an approver must confirm', () => {
    const state = board('paused', [
      record('s1', 'succeeded', { output: healthy }),
      record('s2', 'waiting', { error: { message: 'waiting for an approver to confirm its target', code: 'awaiting-confirmation' } }),
    ]);
    const { plan: view, sections } = drawn(state);
    expect(planTitle(view)).toMatch(/^Waiting for an approver to confirm/);
    expect(JSON.stringify(cards(view)[1]!.details)).toContain('waiting for an approver to confirm');
    expect(text(sections)).toContain('waiting for an approver to confirm');
    expect(text(sections)).not.toContain('waiting for an answer');
  });

  it('a run paused by an escalation says it waits for the people the escalation pings, on which step', () => {
    const state = board('paused', [record('s1', 'failed', { error: { message: 'HTTP 404' } }), record('s2', 'pending')]);
    expect(planTitle(within(planBoard(state, { escalateTo: 'SONCALL' })!))).toMatch(/^Paused — waiting for a decision/);
    for (const drawing of [planBoard(state, { escalateTo: 'SONCALL' })!, statusBoard(state, { escalateTo: 'SONCALL' })])
      expect(text(within(drawing))).toContain('Waiting for <!subteam^SONCALL> to decide on step 1 (Check that /missing answers with HTTP 200)');
  });

  it('a step waiting for an answer names the person it waits for', () => {
    const { plan: view, sections } = drawn(board('paused', [record('s1', 'waiting'), record('s2', 'pending')]));
    expect(planTitle(view)).toMatch(/^Waiting for an answer/);
    for (const drawing of [view, sections]) expect(text(drawing)).toContain('Waiting for <@UREQ> (or an approver) to answer step 1');
  });

  it('false statement: a replaced board stayed "Paused — waiting for a person" — it says "Replaced by plan v2" and offers no Cancel', () => {
    const { plan: view, sections } = drawn(
      board('awaiting-approval', [record('s1', 'failed', { error: { message: 'HTTP 404' } }), record('s2', 'skipped')], { replacedBy: 2 }),
    );
    expect(planTitle(view)).toBe('Replaced by plan v2: Check the site and note it');
    expect(headerOf(sections)).toContain('Replaced by plan v2');
    expect(hasCancel(view) || hasCancel(sections)).toBe(false);
  });

  it('false statement: Skip of a failed check made the board say "Succeeded" and the step look done or pending', () => {
    const skipped = record('s1', 'succeeded', { output: missing, error: { message: 'skipped by a person: evaluation failed', code: SKIPPED_BY_PERSON } });
    const { plan: view, sections } = drawn(board('succeeded', [skipped, record('s2', 'succeeded', { output: opened })]));
    expect(planTitle(view)).toBe('Finished with 1 skipped: Check the site and note it');
    expect(planTitle(view)).not.toMatch(/Succeeded/);
    const [card] = cards(view);
    expect(card!.status).not.toBe('complete');
    expect(card!.status).not.toBe('pending');
    expect(card!.title).toContain('(skipped)');
    expect(text(sections)).toContain(':fast_forward: 1. Check that /missing answers with HTTP 200 · skipped');
    expect(text(sections)).toContain('1/2 steps done');
    expect(hasCancel(view)).toBe(false);
  });

  it('the evaluator model was down: the step is not shown as a pass, the title is not "Succeeded"', () => {
    const state = board('succeeded', [record('s1', 'succeeded', { output: healthy }), record('s2', 'succeeded', { output: opened })], {
      unchecked: new Set(['1/s1']),
    });
    const { plan: view, sections } = drawn(state);
    expect(planTitle(view)).toBe('Finished with 1 not checked: Check the site and note it');
    expect(cards(view)[0]!.title).toContain('(not checked)');
    expect(text(sections)).toContain('its result could not be checked');
  });

  it('succeeded: links labelled by what they are, no "link", no Cancel', () => {
    const { plan: view, sections } = drawn(board('succeeded', [record('s1', 'succeeded', { output: healthy }), record('s2', 'succeeded', { output: opened })]));
    expect(planTitle(view)).toBe('Succeeded: Check the site and note it');
    expect(cards(view)[1]!.sources).toEqual([{ type: 'url', url: opened.url, text: 'acme/api#42' }]);
    expect(text(sections)).toContain('<https://github.com/acme/api/issues/42|acme/api#42>');
    expect(text(sections)).not.toContain('|link>');
    expect(hasCancel(view)).toBe(false);
  });

  it('cancelled with an uncertain change: the title says so, and what may have happened is under it', () => {
    const state = board('cancelled', [
      record('s1', 'succeeded', { output: healthy }),
      record('s2', 'uncertain', { error: { message: 'GitHub did not answer', uncertain: true } }),
    ]);
    const { plan: view, sections } = drawn(state);
    expect(planTitle(view)).toBe('Cancelled: Check the site and note it');
    for (const drawing of [view, sections]) expect(text(drawing)).toContain('uncertain: Open an issue may or may not have taken effect');
  });

  it('aborted: rolled back and still in place, the undo step as its own card', () => {
    const state = board('aborted', [
      record('s1', 'succeeded', { output: healthy }),
      record('s2', 'succeeded', { output: opened }),
      record('r1', 'succeeded', { kind: 'rollback' }),
    ]);
    const { plan: view } = drawn(state);
    expect(planTitle(view)).toBe('Aborted: Check the site and note it');
    expect(text(view)).toContain('rolled back Close the issue');
    expect(cards(view).map((c) => c.task_id)).toEqual(['s1', 's2', 'rollback-r1']);
  });
});

describe('summary, in each outcome', () => {
  it('false statement: Skip of a failed http_check ended "✔ Done" — it says "Finished with 1 skipped" and shows the 404', () => {
    const skipped = record('s1', 'succeeded', { output: missing, error: { message: 'skipped', code: SKIPPED_BY_PERSON } });
    const view = within(summaryMessage(summaryOf('succeeded', [skipped])));
    expect(view.text).toMatch(/^:warning: Finished with 1 skipped/);
    expect(text(view)).not.toMatch(/Done|Succeeded/);
    expect(text(view)).toContain('site.test/missing answered 404 Not Found in 12 ms');
    expect(text(view)).toContain('*Not done:*\\n• :fast_forward: Check that /missing answers with HTTP 200 — skipped');
    expect(text(view)).not.toContain('Save as runbook');
  });

  it('false statement: a read task ended "What changed: nothing" with no "200 OK" — it leads with the answer', () => {
    const view = within(summaryMessage(summaryOf('succeeded', [record('s1', 'succeeded', { output: healthy })])));
    expect(view.text).toMatch(/^:white_check_mark: Succeeded/);
    const [, answer] = view.blocks as { text?: { text: string } }[];
    expect(answer!.text!.text).toContain('site.test/health answered 200 OK in 41 ms');
  });

  it('false statement: a cancelled run with an uncertain change said "What changed: nothing"', () => {
    const view = within(
      summaryMessage(
        summaryOf('cancelled', [record('s1', 'succeeded', { output: healthy }), record('s2', 'uncertain', { error: { message: 'x', uncertain: true } })]),
      ),
    );
    expect(text(view)).not.toContain('What changed:* nothing');
    expect(view.text).toMatch(/^:no_entry_sign: Cancelled: /);
    expect(text(view)).toContain('Uncertain: Open an issue may or may not have taken effect');
    expect(text(view)).toContain('*Uncertain:*');
  });

  it('changes are listed by what happened, in the past tense, with labelled links', () => {
    const view = within(
      summaryMessage(summaryOf('succeeded', [record('s1', 'succeeded', { output: healthy }), record('s2', 'succeeded', { output: opened })])),
    );
    expect(text(view)).toContain('• Opened <https://github.com/acme/api/issues/42|acme/api#42> “Flaky test”');
    expect(text(view)).not.toContain('Open an issue'); // the plan's title is not what happened
    expect(text(view)).toContain('Save as runbook');
    expect(text(view)).toContain('feedback_buttons');
  });

  it('aborted: what was rolled back and what is still in place', () => {
    const steps = [
      record('s1', 'succeeded', { output: healthy }),
      record('s2', 'succeeded', { output: opened }),
      record('r1', 'failed', { kind: 'rollback', error: { message: 'GitHub said no' } }),
    ];
    const view = within(summaryMessage(summaryOf('aborted', steps)));
    expect(view.text).toMatch(/^:octagonal_sign: Aborted: /);
    expect(text(view)).toContain('Nothing was rolled back; still in place: Open an issue');
    expect(text(view)).toContain('*Still in place:*');
    expect(text(view)).toContain('*Rolled back:*');
  });

  it('the evaluator model was down: not "Done", and says the check could not be made', () => {
    const summary = summaryOf('succeeded', [record('s1', 'succeeded', { output: healthy })]);
    summary.verdict = runOutcome('succeeded', [{ title: 'Check', kind: 'forward', status: 'succeeded', unchecked: true }]);
    const view = within(summaryMessage(summary));
    expect(view.text).toMatch(/^:warning: Finished with 1 not checked/);
    expect(text(view)).toContain('could not be made');
  });

  it('rejected before it ran: no feedback to give, no "What changed"', () => {
    const view = within(summaryMessage(summaryOf('rejected', [])));
    expect(text(view)).not.toContain('feedback_buttons');
    expect(text(view)).not.toContain('What changed');
  });

  it('an expired plan offers Propose again (the same task planned afresh), and only then', () => {
    const expired = within(summaryMessage(summaryOf('rejected', [], { expired: true, ran: false })));
    const button = expired.blocks.flatMap((b) => (b.type === 'actions' ? b.elements : [])).find((e) => 'text' in e && e.text?.text === 'Propose again');
    expect(button).toMatchObject({ action_id: PLANNER_TRY_AGAIN_ACTION, value: encodeTryAgain('run_1') });
    expect(visible(within(summaryMessage(summaryOf('rejected', []))))).not.toContain('Propose again');
  });

  it('an expired plan reads Expired, never Rejected, with Propose again and no feedback; so does one owed before migration 0016', () => {
    for (const view of [summaryOf('expired', [], { ran: false }), summaryOf('rejected', [], { expired: true, ran: false })].map((s) =>
      within(summaryMessage(s)),
    )) {
      expect(view.text).toMatch(/^:hourglass: Expired: /);
      expect(visible(view)).toContain('Propose again');
      expect(text(view)).not.toContain('feedback_buttons');
      expect(text(view)).not.toContain('What changed');
    }
  });

  it('cancelled before any step ran: no feedback buttons (nothing ran to judge)', () => {
    const view = within(summaryMessage(summaryOf('cancelled', [], { ran: false })));
    expect(view.text).toMatch(/^:no_entry_sign: Cancelled: /);
    expect(text(view)).not.toContain('feedback_buttons');
  });

  it('a run that came from a runbook is not offered as a new runbook; feedback stays', () => {
    const view = within(summaryMessage(summaryOf('succeeded', [record('s1', 'succeeded', { output: healthy })], { fromRunbook: true })));
    expect(text(view)).not.toContain('Save as runbook');
    expect(text(view)).toContain('feedback_buttons');
  });

  it('a search answer is shortened, with a link to the rest; a long model answer stays within limits', () => {
    const items = Array.from({ length: 30 }, (_, i) => ({
      number: i,
      title: `Issue ${i} ${'x'.repeat(200)}`,
      url: `https://github.com/acme/api/issues/${i}`,
      repo: 'acme/api',
      isPull: false,
    }));
    const search = record('s1', 'succeeded', { tool: 'github_search_issues', output: { query: 'flaky', totalCount: 300, incomplete: false, items } });
    const agent = record('s2', 'succeeded', { tool: 'agent_task', risk: 'read', output: { text: 'y'.repeat(20_000), calls: [] } });
    const view = within(summaryMessage(summaryOf('succeeded', [search, agent])));
    expect(text(view)).toContain('Found 300 matches for “flaky”');
    expect(text(view)).toContain('|295 more>');
    expect(text(view)).toContain('yyyyyyyyyy'); // the agent's answer, shortened to fit
  });

  it('no ids, tokens or cost unless asked; a duration under a second is not shown', () => {
    const summary = summaryOf('succeeded', [record('s1', 'succeeded', { output: healthy })], { tokens: { input: 10, output: 5 }, costUsd: 0.5 });
    const plain = visible(within(summaryMessage(summary)));
    expect(plain).not.toMatch(/run_1|tokens|\$0\.5|0s/);
    expect(text(within(summaryMessage(summary, { showCost: true })))).toContain('15 tokens · $0.5000');
  });
});

/** Every state drawn, none out of Slack's limits (a table, so a new state is one more row). */
describe('every board state within limits', () => {
  const states: [RunStatus, StepRecord[]][] = [
    ['executing', [record('s1', 'running'), record('s2', 'pending')]],
    ['paused', [record('s1', 'failed', { error: { message: 'x'.repeat(3000) } }), record('s2', 'pending')]],
    ['rolling-back', [record('s1', 'succeeded'), record('s2', 'succeeded'), record('r1', 'running', { kind: 'rollback' })]],
    ['failed', [record('s1', 'failed'), record('s2', 'skipped')]],
  ];
  it.each(states)('%s', (status, steps) => {
    const { plan: view, sections } = drawn(board(status, steps));
    expect(view.blocks.length).toBeGreaterThan(0);
    expect((sections.blocks as MessageBlock[]).length).toBeGreaterThan(0);
  });
});

describe('a summary with far more than fits', () => {
  it('stays within Slack’s limits, the outcome first, the buttons last', () => {
    const long = (n: number) => Array.from({ length: 40 }, (_, i) => `${'Step '.repeat(n)}${i}`);
    const results = Array.from({ length: 40 }, (_, i) => ({
      kind: (i % 2 ? 'answer' : 'change') as 'answer' | 'change',
      text: `Result ${i} ${'z'.repeat(1200)}`,
      link: { label: `acme/api#${i}`, url: `https://github.com/acme/api/issues/${i}` },
    }));
    const summary: RunSummary = {
      ...summaryOf('aborted', []),
      goal: 'g'.repeat(2000),
      reason: 'r'.repeat(3000),
      results,
      rolledBack: long(30).map((title) => ({ title, status: 'succeeded' })),
      verdict: {
        kind: 'aborted',
        headline: `Aborted — ${'x'.repeat(2000)}`,
        skipped: long(30),
        failed: long(30),
        uncertain: long(30),
        unchecked: long(30),
        rolledBack: long(30),
        stillInPlace: long(30),
      },
      fallbackPlanner: { author: 'openai:gpt-4o', reason: 'q'.repeat(1000) },
      run: makeRun({ status: 'aborted', currentPlanVersion: 1 }),
    };
    const view = within(summaryMessage(summary, { showCost: true }));
    expect(JSON.stringify(view.blocks[0])).toContain(':octagonal_sign: *Aborted:*');
    expect(view.blocks.at(-1)!.type).toBe('context_actions');
  });
});
