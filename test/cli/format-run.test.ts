import { describe, expect, it } from 'vitest';
import { parseRunEvent } from '../../src/agent/model/run-events.ts';
import type { RunRecord } from '../../src/agent/ports/run-store.ts';
import { formatPlan } from '../../src/cli/format-plan.ts';
import { formatRunList } from '../../src/cli/format-run.ts';
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

// Clear the screen, set the window title, a carriage return over the line, the one-byte CSI of some terminals, and a
// right-to-left override with its end (text that reads backwards on screen).
const ESCAPES = '\u001b[2J\u001b]0;pwned\u0007\rok\u009b31m\u202eniam\u202c';
const SHOWN = '\\x1b[2J\\x1b]0;pwned\\x07\\x0dok\\x9b31m\\u202eniam\\u202c';
// eslint-disable-next-line no-control-regex -- what must not reach the terminal
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('words from people and models reach the terminal as text, never as escape sequences', () => {
  it('tandem runs and tandem show print the task, goal, steps, questions, answers and escalations with their control characters shown as codes', () => {
    // The list puts a task on one line: its line breaks and carriage returns are spaces there.
    const listed = formatRunList([{ ...run, task: `deploy ${ESCAPES}` }]);
    expect(listed).not.toMatch(CONTROL);
    expect(listed).toContain(`deploy ${SHOWN.replace('\\x0d', ' ')}`);
    const plan = {
      schemaVersion: 1 as const,
      goal: `goal ${ESCAPES}`,
      confidence: 0.9,
      steps: [{ id: 's1', title: `title ${ESCAPES}`, tool: 'ask_human', args: { question: 'q' }, dependsOn: [] }],
      rollback: [],
      questions: [`question ${ESCAPES}`],
    };
    const out = showRun(
      { ...run, task: `task ${ESCAPES}` },
      {
        versions: [{ runId: run.id, version: 1, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null, createdAt: at }] as never,
        questions: [
          {
            id: 'q1',
            runId: run.id,
            stepId: 's1',
            planVersion: 1,
            question: 'Which?',
            answer: `answer ${ESCAPES}`,
            answeredBy: 'U1',
            createdAt: at,
            answeredAt: at,
          },
        ],
        escalations: [{ id: 'e1', runId: run.id, planVersion: 1, stepId: 's1', kind: 'step-failed', status: 'open', message: `failed ${ESCAPES}` }] as never,
      },
    );
    expect(out).not.toMatch(CONTROL);
    for (const words of ['task', 'goal', 'title', 'question', 'answer', 'failed']) expect(out).toContain(`${words} ${SHOWN}`);
    expect(out.split('\n').length).toBeGreaterThan(10);
  });

  it('tandem plan prints the goal, step titles and questions the same way', () => {
    const out = formatPlan({
      plan: {
        schemaVersion: 1,
        goal: `goal ${ESCAPES}`,
        confidence: 0.9,
        steps: [{ id: 's1', title: `title ${ESCAPES}`, tool: 'ask_human', args: { question: 'q' }, dependsOn: [], expect: `expect ${ESCAPES}` }],
        rollback: [],
        questions: [`question ${ESCAPES}`],
      },
      author: 'm',
      authorKind: 'planner',
      risks: { s1: 'read' },
    });
    expect(out).not.toMatch(CONTROL);
    for (const words of ['goal', 'title', 'expect', 'question']) expect(out).toContain(`${words} ${SHOWN}`);
  });
});
