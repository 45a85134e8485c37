/**
 * `tandem audit` loads no MCP server, so it does not know an MCP tool's risk; each step stored the risk its tool had
 * when it ran, and the audit takes that (review 19 finding 4): a valid run with an MCP write tool is no violation. A
 * rollback step stores nothing until the rollback runs; its version's approval recorded that no step was destructive.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { auditRuns } from '../../src/audit/audit.ts';
import { withStoredRisks } from '../../src/audit/stored-risks.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { auditContext } from '../../src/cli/audit-command.ts';
import { loadConfig } from '../../src/config/config.ts';
import { policyMadeInTests } from '../helpers/policy-gate.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool, standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();

/** A run of one MCP step, approved by its requester (an approver), as `tandem audit` with TANDEM_APPROVERS=UREQ,UAPP sees it. */
async function auditedMcpRun(risk: Risk, options: { undo?: string } = {}) {
  // As load-mcp-tools makes it: an MCP tool's risk is `write` unless configured.
  const mcp = (name: string) => fakeTool({ name, risk, input: z.object({ service: z.string() }), run: () => ({ status: 'ok', output: { restarted: true } }) });
  const rollback = options.undo ? [{ id: 'r1', tool: options.undo, args: { service: 'api' }, undoes: 's1' }] : [];
  const h = makeHarness({
    store: db.store,
    tools: [...standardTools().all, mcp('mcp_ops_restart'), ...(options.undo ? [mcp(options.undo)] : [])],
    llm: new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'mcp_ops_restart', args: { service: 'api' } }], rollback })),
    approvers: ['UREQ', 'UAPP'],
  });
  const run = await h.start('restart api', 'UREQ');
  await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UREQ', decision: 'approve' });
  await h.agent.idle();
  const config = loadConfig({ TANDEM_APPROVERS: 'UREQ,UAPP' });
  const audited = await auditRuns(h.store, { ...auditContext(config), policyOf: policyMadeInTests }, { runId: run.id });
  return { status: (await h.store.getRun(run.id))?.status, audited };
}

describe('tandem audit and an MCP tool', () => {
  it('a write MCP step approved by its requester (an approver) is a valid run, and the audit says so', async () => {
    const { status, audited } = await auditedMcpRun('write');
    expect(status).toBe('succeeded');
    expect(audited).toEqual({ runs: 1, violations: [] });
  });

  it('an MCP write tool named only by a rollback step that never ran does not make the run destructive', async () => {
    const { status, audited } = await auditedMcpRun('write', { undo: 'mcp_ops_undo' });
    expect(status).toBe('succeeded');
    expect(audited).toEqual({ runs: 1, violations: [] });
  });

  it('a tool the audit does not know and no step or approval judged still counts as destructive', () => {
    const config = loadConfig({ TANDEM_APPROVERS: 'UREQ,UAPP' });
    const plan: Plan = { schemaVersion: 1, goal: 'g', confidence: 0.9, steps: [], rollback: [{ id: 'r1', title: 'undo', tool: 'mcp_ops_undo', args: {} }] };
    const judged = (need: 'approver' | 'approver-not-requester' | null) =>
      withStoredRisks(auditContext(config), { steps: [], versions: [{ version: 1, plan }], approvals: [{ planVersion: 1, need }] }).riskOf('mcp_ops_undo');
    expect(judged('approver')).toBe('write');
    expect(judged('approver-not-requester')).toBeUndefined();
    expect(judged(null)).toBeUndefined();
  });
});
