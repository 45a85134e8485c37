import { describe, expect, it } from 'vitest';
import { parseRunEvent } from '../../src/agent/model/run-events.ts';
import type { RunRecord } from '../../src/agent/ports/run-store.ts';
import { showRun } from '../helpers/run-detail.ts';

const at = new Date('2026-01-02T03:04:05Z');
const run: RunRecord = {
  id: 'run_1',
  task: 'merge PR 7',
  requester: 'UREQ',
  conversation: { channel: 'C1', threadTs: '1.0' },
  origin: 'mention',
  status: 'succeeded',
  currentPlanVersion: 1,
  replans: 0,
  boardRef: null,
  summary: null,
  createdAt: at,
  updatedAt: at,
  finishedAt: at,
};

const show = (rows: { type: string; data: unknown }[]) =>
  showRun(run, { events: rows.map((row, i) => parseRunEvent({ runId: run.id, seq: i + 1, at, ...row })) });

describe('tandem show: events', () => {
  it('prints each event by its stored name with its payload, and an empty payload as nothing', () => {
    const out = show([
      { type: 'plan-approved', data: { version: 1, by: 'UAPP' } },
      { type: 'run-resumed', data: {} },
    ]);
    expect(out).toContain('\n    1 2026-01-02 03:04:05Z plan-approved {"version":1,"by":"UAPP"}\n');
    expect(out).toMatch(/\n {4}2 2026-01-02 03:04:05Z run-resumed$/);
  });

  it('prints an event an older version wrote in another shape as it was stored', () => {
    const out = show([
      { type: 'plan-archived', data: { version: 1 } },
      { type: 'run-paused', data: { reason: 'waiting', until: 'noon' } },
    ]);
    expect(out).toContain('plan-archived {"version":1}');
    expect(out).toContain('run-paused {"reason":"waiting","until":"noon"}');
  });
});
