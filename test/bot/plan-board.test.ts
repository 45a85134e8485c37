import type { types } from '@slack/bolt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StepStatus } from '../../src/agent/ports/run-store.ts';
import type { BoardState, BoardStep } from '../../src/agent/ports/surface.ts';
import { LIMITS, MessageBlocksSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { planBoard } from '../../src/bot/views/run/plan-board.ts';
import { statusBoard } from '../../src/bot/views/run/status-board.ts';
import { makeBoard, makePlan } from '../fakes/slack-fixtures.ts';

function limitProblems(blocks: MessageBlock[]): string[] {
  const result = MessageBlocksSchema.safeParse(blocks);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

/** The view's plan block, typed as the SDK types it: a field @slack/types does not know fails to compile. */
function planOf(blocks: MessageBlock[]): types.PlanBlock {
  const plan = blocks.find((block): block is types.PlanBlock => block.type === 'plan');
  if (!plan) throw new Error('no plan block');
  return plan;
}
const cards = (blocks: MessageBlock[]) => (planOf(blocks).tasks ?? []) as types.TaskCardBlock[];
const words = (rich: types.RichTextBlock | undefined) => JSON.stringify(rich ?? '');

const step = (overrides: Partial<BoardStep>): BoardStep => ({
  stepId: 's1',
  title: 'Step',
  tool: 'http_check',
  kind: 'forward',
  status: 'pending',
  elapsedMs: null,
  url: null,
  note: null,
  ...overrides,
});

describe('plan board (Slack plan block)', () => {
  it('has one task card per step with its state, elapsed time, result and links, and the run in the title', () => {
    const board = makeBoard(makePlan(3));
    board.steps[0]!.note = 'HTTP 200 in 41 ms';
    const view = planBoard(board)!;
    expect(view.text).toBe('Running: Merge PR 42 on acme/api &lt;safely&gt; &amp; quickly (1/3 steps done)'); // fallback text is mrkdwn: escaped
    expect(planOf(view.blocks).title).toBe('Running: Merge PR 42 on acme/api <safely> & quickly');
    const [first, second, third] = cards(view.blocks);
    expect(first).toMatchObject({
      task_id: 's1',
      title: '1. Check CI run 1',
      status: 'complete',
      // Labelled by what it is, not "link".
      sources: [{ type: 'url', url: 'https://github.com/acme/api/actions/runs/1', text: 'acme/api workflow run' }],
    });
    expect(words(first!.details)).toContain('done · 2s');
    expect(words(first!.output)).toContain('HTTP 200 in 41 ms');
    expect(second).toMatchObject({ title: '2. Check CI run 2', status: 'in_progress' });
    expect(third).toMatchObject({ title: '3. Check CI run 3', status: 'pending' });
    expect(third!.sources).toBeUndefined();
    expect(JSON.stringify(view.blocks)).toContain('Plan v1 · 1/3 steps done · 4s');
    expect(JSON.stringify(view.blocks, (key, value: unknown) => (key === 'value' ? undefined : value))).not.toContain('run_1'); // no ids a person reads
    expect(limitProblems(view.blocks)).toEqual([]);
  });

  it('never shows a skipped or cancelled step as complete or as not started, and says in words what happened', () => {
    const board: BoardState = {
      ...makeBoard(makePlan(1)),
      runStatus: 'cancelled',
      steps: [
        step({ stepId: 's1', status: 'skipped' }),
        step({ stepId: 's2', status: 'cancelled', elapsedMs: 3000 }),
        step({ stepId: 's3', status: 'failed', note: 'HTTP 503' }),
        step({ stepId: 's4', status: 'uncertain' }),
      ],
    };
    const [skipped, cancelled, failed, uncertain] = cards(planBoard(board)!.blocks);
    expect(skipped!.status).toBe('error');
    expect(skipped!.title).toContain('(skipped)');
    expect(words(skipped!.details)).toContain('skipped');
    expect(cancelled!.status).toBe('error');
    expect(words(cancelled!.details)).toContain('cancelled');
    expect(words(cancelled!.details)).toContain('3s');
    expect(failed).toMatchObject({ status: 'error' });
    expect(words(failed!.output)).toContain('HTTP 503');
    expect(words(uncertain!.details)).toContain('uncertain');
  });

  it('puts rollback steps after an abort as their own cards, after the forward ones', () => {
    const board: BoardState = {
      ...makeBoard(makePlan(1)),
      runStatus: 'aborted',
      steps: [
        step({ stepId: 's1', title: 'Create the issue', status: 'succeeded' }),
        step({ stepId: 'r1', title: 'Close the issue', kind: 'rollback', status: 'succeeded' }),
      ],
    };
    const view = planBoard(board)!;
    expect(cards(view.blocks).map((card) => [card.task_id, card.title])).toEqual([
      ['s1', '1. Create the issue'],
      ['rollback-r1', 'Rollback 1. Close the issue'],
    ]);
    expect(view.text).toMatch(/^Aborted: /);
  });

  it('gives up (so the caller draws sections) beyond 50 tasks, and fits long runs by dropping results first', () => {
    expect(planBoard(makeBoard(makePlan(LIMITS.planTasks + 1)))).toBeUndefined();
    const long = makeBoard(makePlan(30, { longTitles: true }));
    long.steps = long.steps.map((s) => ({ ...s, status: 'failed', note: 'x'.repeat(900), url: 'https://example.test/a/very/long/link' }));
    const view = planBoard(long);
    if (view) {
      expect(limitProblems(view.blocks)).toEqual([]);
      expect(cards(view.blocks)).toHaveLength(30);
    }
    expect(limitProblems(statusBoard(long).blocks)).toEqual([]);
  });

  it('for any board: a plan view within Slack limits with unique task ids, or none at all (then sections fit)', () => {
    const statuses: StepStatus[] = ['pending', 'running', 'waiting', 'succeeded', 'failed', 'skipped', 'cancelled', 'uncertain'];
    const stepArb = fc.record({
      stepId: fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
      title: fc.string({ minLength: 1, maxLength: 300 }),
      tool: fc.constant('http_check'),
      kind: fc.constantFrom<'forward' | 'rollback'>('forward', 'rollback'),
      status: fc.constantFrom(...statuses),
      elapsedMs: fc.option(fc.nat(10_000_000), { nil: null }),
      url: fc.option(fc.webUrl(), { nil: null }),
      note: fc.option(fc.string({ minLength: 1, maxLength: 2000 }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(stepArb, { maxLength: 60, selector: (s) => `${s.kind}:${s.stepId}` }),
        fc.string({ minLength: 1, maxLength: 400 }),
        (steps, goal) => {
          const board: BoardState = { ...makeBoard(makePlan(1)), goal, steps };
          const view = planBoard(board);
          if (!view) {
            expect(limitProblems(statusBoard(board).blocks)).toEqual([]);
            return;
          }
          expect(limitProblems(view.blocks)).toEqual([]);
          expect(cards(view.blocks)).toHaveLength(steps.length);
          expect(view.text.length).toBeLessThanOrEqual(LIMITS.messageText);
        },
      ),
      { numRuns: 60 },
    );
  });
});
