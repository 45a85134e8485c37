/**
 * No step, run or schedule ids in what people read in the thread (issue 29, part 5): a new version's
 * changes, its replan reason, a skipped card and a schedule's reply name steps by their titles or
 * numbers. Plain data in, blocks out, checked against Slack's limits; each would fail on the old words.
 */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { diffPlans } from '../../src/agent/model/plan/plan-diff.ts';
import { buildBoard } from '../../src/agent/delivery/board.ts';
import type { StepRecord } from '../../src/agent/ports/run-store.ts';
import { MessageBlocksSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { planMessages } from '../../src/bot/views/plan/plan-message.ts';
import { versionReasonWords } from '../../src/bot/views/plan/version-reason.ts';
import { planBoard } from '../../src/bot/views/run/plan-board.ts';
import { statusBoard } from '../../src/bot/views/run/status-board.ts';
import { scheduleCreatedMessage, scheduleListMessage } from '../../src/bot/views/schedules.ts';
import { makeProposal, makeRun } from '../fakes/slack-fixtures.ts';

const STEP_ID = /\b[sr]\d+\b/;
const text = (blocks: readonly MessageBlock[]) => JSON.stringify(blocks);
function expectWithinLimits(blocks: MessageBlock[]) {
  const result = MessageBlocksSchema.safeParse(blocks);
  expect(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
}

const v1: Plan = {
  schemaVersion: 1,
  goal: 'Deploy demo/web',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Open the tracking issue', tool: 'github_create_issue', args: { repo: 'demo/web', title: 'Deploy' }, dependsOn: [] },
    {
      id: 's2',
      title: 'Deploy main of demo/web',
      tool: 'github_dispatch_workflow',
      args: { repo: 'demo/web', workflow: 'deploy.yml', ref: 'main' },
      dependsOn: ['s1'],
    },
    { id: 's3', title: 'Check demo/web answers', tool: 'http_check', args: { url: 'https://web.demo/health' }, dependsOn: ['s2'] },
  ],
  rollback: [{ id: 'r1', title: 'Note the rollback', tool: 'github_comment', args: { repo: 'demo/web', number: 1, body: 'rolled back' }, undoes: 's1' }],
};
const v2: Plan = {
  ...v1,
  goal: 'Roll demo/web back',
  steps: [
    { id: 's1', title: 'Open the tracking issue', tool: 'github_create_issue', args: { repo: 'demo/web', title: 'Deploy' }, dependsOn: [] },
    {
      id: 's4',
      title: 'Run the rollback workflow',
      tool: 'github_dispatch_workflow',
      args: { repo: 'demo/web', workflow: 'rollback.yml', ref: 'main' },
      dependsOn: ['s1'],
    },
    {
      id: 's5',
      title: 'Check demo/web answers after the rollback',
      tool: 'http_check',
      args: { url: 'https://web.demo/health' },
      dependsOn: ['s1', 's4'],
      expect: 'HTTP 200',
    },
  ],
  rollback: [{ id: 'r1', title: 'Note the rollback', tool: 'github_comment', args: { repo: 'demo/web', number: 1, body: 'rolled back' }, undoes: 's4' }],
};
const targetsOf = (step: { tool: string; args: Record<string, unknown> }) =>
  step.tool === 'http_check' ? [] : ['repo', 'number', 'workflow', 'ref'].filter((name) => name in step.args);

describe('a new plan version in words', () => {
  it('its changes name steps by number and title, never by id ("added s4: …" was the old line)', () => {
    const diff = diffPlans(v1, v2, targetsOf);
    expect(diff.map((line) => line.text)).toEqual([
      'goal: “Deploy demo/web” → “Roll demo/web back”',
      'added step 2: Run the rollback workflow (github_dispatch_workflow repo="demo/web", workflow="rollback.yml", ref="main")',
      'added step 3: Check demo/web answers after the rollback (http_check)',
      'removed step “Deploy main of demo/web”',
      'removed step “Check demo/web answers”',
      'rollback step 1 undoes: “Open the tracking issue” → “Run the rollback workflow”',
    ]);
    for (const line of diff) expect(line.text).not.toMatch(STEP_ID);
    const views = planMessages(makeProposal(v2, { version: 2, diff, reason: 'replan: s2 (Deploy main of demo/web) failed: the workflow concluded failure' }));
    for (const view of views) expectWithinLimits(view.blocks);
    const shown = views.map((view) => text(view.blocks)).join('');
    expect(shown).toContain('added step 2: Run the rollback workflow');
    expect(shown).not.toMatch(STEP_ID);
  });

  it('a changed dependency says which steps it waits for, by title', () => {
    const moved: Plan = { ...v1, steps: v1.steps.map((step) => (step.id === 's3' ? { ...step, dependsOn: ['s1', 's2'] } : step)) };
    const [line] = diffPlans(v1, moved, targetsOf);
    expect(line?.text).toBe('step 3 waits for: “Deploy main of demo/web” → “Open the tracking issue” and “Deploy main of demo/web”');
  });

  it('the replan reason on v2 names the failed step by its title, and the fallback planner without its model', () => {
    const view = planMessages(
      makeProposal(v2, {
        version: 2,
        reason: [
          'replan: ',
          { user: 'UAPP' },
          ' asked for a new plan after: s2 (Deploy main of demo/web) is a write step and it failed: concluded failure; written by the fallback planner anthropic:claude-x because the planner’s confidence 0.20 was below the threshold 0.6',
        ],
      }),
    )[0]!;
    const context = text(view.blocks);
    expect(context).toContain(
      'Plan v2 — replan: <@UAPP> asked for a new plan after: “Deploy main of demo/web” is a write step and it failed: concluded failure; written by the fallback planner',
    );
    expect(context).not.toMatch(STEP_ID);
    expect(context).not.toContain('anthropic:claude-x');
    expect(context).not.toContain('0.20');
  });

  it('leaves reasons without step ids as they are', () => {
    expect(versionReasonWords('replan: the replica that was planning this run stopped')).toBe('replan: the replica that was planning this run stopped');
    expect(versionReasonWords("planned again with the requester's answers")).toBe("planned again with the requester's answers");
    expect(versionReasonWords('replan: s2 (Read (the) page) failed: x')).toBe('replan: s2 (Read (the) page) failed: x');
  });
});

describe('a skipped card in words', () => {
  const at = new Date('2026-11-21T22:00:00Z');
  const record = (stepId: string, status: StepRecord['status'], message?: string): StepRecord => ({
    runId: 'run_1',
    planVersion: 1,
    stepId,
    kind: 'forward',
    title: v1.steps.find((step) => step.id === stepId)!.title,
    tool: v1.steps.find((step) => step.id === stepId)!.tool,
    risk: 'write',
    status,
    error: message ? { message } : null,
    output: null,
    startedAt: status === 'skipped' ? null : at,
    finishedAt: status === 'skipped' ? null : at,
    dependsOn: [],
    plannedArgs: {},
    attempt: 1,
    leaseOwner: null,
    leaseUntil: null,
  });

  it('says which step it waited for by title ("skipped: s2 failed" was the old note), on both boards', () => {
    const steps = [record('s1', 'succeeded'), record('s2', 'failed', 'the workflow concluded failure'), record('s3', 'skipped', 'skipped: s2 failed')];
    const board = buildBoard(makeRun({ status: 'failed', finishedAt: at }), 1, v1, steps, at);
    expect(board.steps[2]?.note).toBe('skipped because “Deploy main of demo/web” failed');
    for (const view of [planBoard(board)!, statusBoard(board)]) {
      expectWithinLimits(view.blocks);
      expect(text(view.blocks)).toContain('skipped because “Deploy main of demo/web” failed');
      expect(text(view.blocks)).not.toMatch(/skipped: s2/);
    }
  });

  it('an argument that could not be filled is named by the argument, not the step id', () => {
    const steps = [record('s1', 'failed', 's1.args.number: expected number, received string (after filling references)')];
    const board = buildBoard(makeRun({ status: 'failed', finishedAt: at }), 1, v1, steps, at);
    expect(board.steps[0]?.note).toBe('argument number: expected number, received string (after filling references)');
  });
});

describe('a schedule reply in words', () => {
  const schedule = {
    id: 'sch_01HZX',
    cron: '0 9 * * 1-5',
    timeZone: 'Europe/Berlin',
    task: 'give me a status report',
    channel: 'C1',
    createdBy: 'UROBIN',
    nextFires: ['Mon, Nov 23, 2026, 09:00 CET'],
  };

  it('reads as a sentence with no schedule id; the Remove button still carries it', () => {
    const view = scheduleCreatedMessage(schedule, { fellBackToUtc: false });
    expectWithinLimits(view.blocks);
    const words = JSON.stringify(view.blocks.filter((block) => block.type !== 'actions'));
    expect(words).toContain('Scheduled for <@UROBIN>: *give me a status report*');
    expect(words).toContain('Runs at `0 9 * * 1-5` in Europe/Berlin');
    expect(words).not.toContain('sch_');
    expect(view.text).not.toContain('sch_');
    expect(JSON.stringify(view.blocks.filter((block) => block.type === 'actions'))).toContain('sch_01HZX');
    const list = scheduleListMessage([schedule]);
    expectWithinLimits(list.blocks);
    expect(JSON.stringify(list.blocks).split('sch_01HZX')).toHaveLength(2); // only in the Remove button's value
  });
});
