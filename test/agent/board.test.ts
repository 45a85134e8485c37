import { describe, expect, it } from 'vitest';
import { buildBoard, type BoardLines } from '../../src/agent/delivery/board.ts';
import type { StepRecord } from '../../src/agent/ports/run-store.ts';
import { makePlan, makeRun } from '../fakes/slack-fixtures.ts';

const run = makeRun({ currentPlanVersion: 1 });
const plan = makePlan(3);
const at = (s: number) => new Date(Date.UTC(2026, 10, 21, 22, 0, s));
const record = (stepId: string, patch: Partial<StepRecord>): StepRecord => ({
  runId: run.id,
  planVersion: 1,
  stepId,
  kind: 'forward',
  title: stepId,
  tool: 'github_get_repo',
  risk: 'read',
  dependsOn: [],
  plannedArgs: {},
  status: 'pending',
  attempt: 1,
  output: null,
  error: null,
  startedAt: null,
  finishedAt: null,
  leaseOwner: null,
  leaseUntil: null,
  ...patch,
});

describe('the status board', () => {
  it('redraws what changed and keeps the rest: the same board with or without remembered lines, and the running clock always current', () => {
    const done = record('s1', { status: 'succeeded', startedAt: at(0), finishedAt: at(4), output: { url: 'https://github.com/acme/api/pull/7' } });
    const running = record('s2', { status: 'running', startedAt: at(2) });
    const drawn: BoardLines = new WeakMap();

    const first = buildBoard(run, 1, plan, [done, running], at(5), drawn);
    expect(first).toEqual(buildBoard(run, 1, plan, [done, running], at(5)));
    expect(first.steps.map((line) => [line.stepId, line.status, line.elapsedMs, line.url])).toEqual([
      ['s1', 'succeeded', 4000, 'https://github.com/acme/api/pull/7'],
      ['s2', 'running', 3000, null],
      ['s3', 'pending', null, null],
    ]);

    const later = buildBoard(run, 1, plan, [done, running], at(9), drawn);
    expect(later.steps[0]).toBe(first.steps[0]); // unchanged record: the same line
    expect(later.steps[2]).toBe(first.steps[2]); // not started: the same line
    expect(later.steps[1]?.elapsedMs).toBe(7000); // running: drawn with the time now

    const finished = { ...running, status: 'failed' as const, finishedAt: at(10), error: { message: 'GitHub answered 502' } };
    const end = buildBoard(run, 1, plan, [done, finished], at(12), drawn);
    expect(end.steps[1]).toMatchObject({ status: 'failed', elapsedMs: 8000, note: 'GitHub answered 502' });
  });
});
