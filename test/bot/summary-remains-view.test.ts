/**
 * The summary's Block Kit against Slack's limits, for what review 16 found it left out: the steps that
 * never ran ("what remains"), a model's answer longer than the summary shows, and a plan that expired.
 */
import { describe, expect, it } from 'vitest';
import { runOutcome, type OutcomeStep } from '../../src/agent/model/run-outcome.ts';
import type { StepResult } from '../../src/agent/model/step-results.ts';
import type { RunSummary } from '../../src/agent/ports/surface.ts';
import { LIMITS, MessageBlocksSchema, type MessageView } from '../../src/bot/views/limits.ts';
import { summaryMessage, summaryMessages } from '../../src/bot/views/run/summary.ts';
import { makeRun } from '../fakes/slack-fixtures.ts';

function within(view: MessageView): MessageView {
  const result = MessageBlocksSchema.safeParse(view.blocks);
  expect(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
  for (const block of view.blocks) if (block.type === 'section' && block.text) expect(block.text.text.length).toBeLessThanOrEqual(LIMITS.sectionText);
  expect(view.text.length).toBeLessThanOrEqual(4000);
  return view;
}
const text = (view: MessageView) => JSON.stringify(view.blocks);
const step = (title: string, status: OutcomeStep['status'], more: Partial<OutcomeStep> = {}): OutcomeStep => ({ title, kind: 'forward', status, ...more });

function summaryOf(outcome: RunSummary['outcome'], steps: OutcomeStep[], more: Partial<RunSummary> = {}): RunSummary {
  return {
    run: makeRun({ status: outcome, currentPlanVersion: 1 }),
    outcome,
    goal: 'Wait, then tell the deploys channel',
    reason: null,
    changes: [],
    rolledBack: [],
    durationMs: 3000,
    tokens: { input: 0, output: 0 },
    costUsd: 0,
    verdict: runOutcome(outcome, steps),
    results: [],
    ...more,
  };
}

describe('the summary names what remains', () => {
  it('a cancel during a wait: the wait was stopped, the step after it is under "Not run"', () => {
    const view = within(
      summaryMessage(summaryOf('cancelled', [step('Wait a while', 'cancelled', { started: true }), step('Tell the deploys channel', 'cancelled')])),
    );
    expect(view.text).toMatch(/^:no_entry_sign: Cancelled: /);
    expect(text(view)).toContain('*Not run:*\\n• Tell the deploys channel');
    expect(text(view)).toContain(':no_entry_sign: Wait a while — stopped before it finished');
    // A run that succeeded has nothing there.
    expect(text(within(summaryMessage(summaryOf('succeeded', [step('Check', 'succeeded')]))))).not.toContain('Not run');
  });

  it('an expired Confirm aborts the run: the step waiting for it never ran, and says so; so does a step still pending', () => {
    const view = within(
      summaryMessage(summaryOf('aborted', [step('Pick a channel', 'succeeded'), step('Tell the picked channel', 'cancelled'), step('Then close', 'pending')])),
    );
    expect(text(view)).toContain('*Not run:*\\n• Tell the picked channel\\n• Then close');
  });

  it('sixty steps never run, with failures, skips and answers: within 50 blocks and 3,000 characters a section, the outcome first', () => {
    const titles = (what: string, n: number) => Array.from({ length: n }, (_, i) => `${what} ${i} ${'t'.repeat(140)}`);
    const steps = [
      ...titles('Failed', 20).map((t) => step(t, 'failed')),
      ...titles('Skipped', 20).map((t) => step(t, 'skipped')),
      ...titles('Stopped', 20).map((t) => step(t, 'cancelled', { started: true })),
      ...titles('Never', 60).map((t) => step(t, 'cancelled')),
    ];
    const results: StepResult[] = Array.from({ length: 30 }, (_, i) => ({ kind: 'answer', text: `Answer ${i} ${'a'.repeat(1000)}`, link: null }));
    const view = within(summaryMessage(summaryOf('cancelled', steps, { results })));
    expect(view.blocks.length).toBeLessThanOrEqual(LIMITS.messageBlocks);
    expect(text(view.blocks[0] ? { text: '', blocks: [view.blocks[0]] } : view)).toContain(':no_entry_sign: *Cancelled:*');
    expect(text(view)).toContain('*Not run:*');
    expect(text(view)).toMatch(/_…and \d+ more_/);
  });
});

describe('a model’s long answer follows the summary whole', () => {
  const answer = Array.from({ length: 400 }, (_, i) => `Line ${i}: a < b & c > d, see <!channel> ${'w'.repeat(20)}`).join('\n');
  const long: StepResult = { kind: 'answer', text: answer, link: null, title: 'Draft the release notes' };

  it('the summary shows the start and says the rest follows; the messages after it carry every character, in order', () => {
    const views = summaryMessages(summaryOf('succeeded', [step('Draft the release notes', 'succeeded')], { results: [long] }));
    expect(views.length).toBeGreaterThan(2);
    views.forEach(within);
    expect(text(views[0]!)).toContain('(the whole answer follows below)');
    const rest = views.slice(1);
    expect(rest.map((v) => v.text)).toEqual(rest.map((_, i) => `The whole answer of “Draft the release notes” (${i + 1}/${rest.length})`));
    const sections = rest.flatMap((v) => v.blocks.flatMap((b) => (b.type === 'section' && b.text ? [b.text.text] : [])));
    const unescaped = sections.join('').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    expect(unescaped).toBe(answer);
    expect(sections.join('')).not.toContain('<!channel>'); // escaped, never a ping
  });

  it('a short answer, a list or a check stays in the summary alone', () => {
    const short: StepResult = { kind: 'answer', text: 'Three flaky tests.', link: null, title: 'Find flaky tests' };
    const check: StepResult = { kind: 'answer', text: 'x'.repeat(3000), link: { label: 'site.test', url: 'https://site.test' } };
    expect(summaryMessages(summaryOf('succeeded', [step('Find', 'succeeded')], { results: [short, check] }))).toHaveLength(1);
  });

  it('answers beyond what the thread can hold stop after a bound, saying where the rest is', () => {
    const huge: StepResult = { ...long, text: 'z'.repeat(200_000) };
    const views = summaryMessages(summaryOf('succeeded', [step('Draft', 'succeeded')], { results: [huge] }));
    expect(views.length).toBe(13);
    views.forEach(within);
    expect(text(views.at(-1)!)).toContain('the rest is in the run’s record');
  });
});

describe('an expired plan is not "Rejected"', () => {
  it('the headline and emoji say Expired; the reason says why; Propose again is offered', () => {
    const reason = 'The plan expired: nobody approved it within 1 day, and nothing ran.';
    const view = within(summaryMessage(summaryOf('rejected', [], { expired: true, ran: false, reason })));
    expect(view.text).toMatch(/^:hourglass: Expired: /);
    expect(text(view)).toContain(':hourglass: *Expired:*');
    expect(text(view)).not.toMatch(/Rejected|no_good/);
    expect(text(view)).toContain('Propose again');
    // A plan a person rejected still says Rejected.
    expect(within(summaryMessage(summaryOf('rejected', [], { ran: false }))).text).toMatch(/^:no_good: Rejected: /);
  });
});
