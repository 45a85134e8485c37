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

describe('steps behind a failure that waits for a person', () => {
  // s1 → s2 → s3: s1 failed and its escalation is open; the executor skipped s2 and s3 behind it.
  const failed = record('s1', { status: 'failed', startedAt: at(0), finishedAt: at(1), error: { message: 'HTTP 500' } });
  const s2 = record('s2', { status: 'skipped', error: { message: 'skipped: s1 failed' } });
  const s3 = record('s3', { status: 'skipped', error: { message: 'skipped: s2 was skipped' } });
  const lines = (status: 'paused' | 'aborted') => buildBoard({ ...run, status }, 1, plan, [failed, s2, s3], at(2), new WeakMap()).steps;

  it('are on hold, not skipped, while the failure waits: a Retry or a Skip still runs them', () => {
    expect(lines('paused').map((line) => [line.stepId, line.status, line.note])).toEqual([
      ['s1', 'failed', 'HTTP 500'],
      ['s2', 'pending', 'on hold until someone decides about “Check CI run 1”'],
      ['s3', 'pending', 'on hold until someone decides about “Check CI run 1”'],
    ]);
  });

  it('are skipped once the run ended without them (an Abort)', () => {
    expect(lines('aborted').map((line) => [line.stepId, line.status])).toEqual([
      ['s1', 'failed'],
      ['s2', 'skipped'],
      ['s3', 'skipped'],
    ]);
  });
});
