import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { parseParamLines, suggestParams } from '../../src/bot/runbook-params.ts';
import { MessageBlocksSchema, ModalViewSchema } from '../../src/bot/views/limits.ts';
import { saveRunbookModal } from '../../src/bot/views/save-runbook-modal.ts';
import { scheduleListMessage } from '../../src/bot/views/schedules.ts';

const schedule = (i: number) => ({
  id: `sch_${i}`,
  cron: '0 9 * * 1-5',
  timeZone: 'America/Argentina/Buenos_Aires',
  task: 'triage <all> open pull requests '.repeat(20),
  channel: 'C1',
  createdBy: 'U1',
  nextFires: ['Mon, Nov 23, 2026, 09:00 EST'],
});

describe('schedule and runbook views', () => {
  it("a long schedule list stays within Slack's limits and says how many are not shown", () => {
    const view = scheduleListMessage(Array.from({ length: 60 }, (_, i) => schedule(i)));
    expect(MessageBlocksSchema.safeParse(view.blocks).success).toBe(true);
    expect(JSON.stringify(view.blocks)).toMatch(/…and \d+ more\./);
    expect(JSON.stringify(view.blocks)).toContain('&lt;all&gt;');
  });

  it('the Save as runbook modal fits a 200-step plan and suggests values the task names', () => {
    const steps = Array.from({ length: 200 }, (_, i) => ({
      id: `s${i}`,
      title: 't',
      tool: 'github_create_release',
      dependsOn: [],
      args: { repo: `acme/r${i}`, tag: 'v2.4.0', body: 'x'.repeat(150) },
    }));
    const plan: Plan = { schemaVersion: 1, goal: 'Release', confidence: 0.9, steps, rollback: [] };
    expect(ModalViewSchema.safeParse(saveRunbookModal({ ref: { runId: 'run_1', planVersion: 1 }, task: 'cut release v2.4.0 of acme/r3', plan })).success).toBe(
      true,
    );
    expect(suggestParams('cut release v2.4.0 of acme/r3', plan).sort()).toEqual(['repo=acme/r3', 'tag=v2.4.0']);
  });

  it('reads name=value lines and refuses what is not one', () => {
    expect(parseParamLines('tag = v2.4.0\n\n# a note\nrepo=acme/api')).toEqual({ ok: true, value: { tag: 'v2.4.0', repo: 'acme/api' } });
    expect(parseParamLines('tag v2')).toMatchObject({ ok: false, error: expect.stringContaining('not name=value') });
    expect(parseParamLines('a=1\na=2')).toMatchObject({ ok: false, error: expect.stringContaining('twice') });
  });
});
