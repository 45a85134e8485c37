import { describe, expect, it } from 'vitest';
import { approvalNeed, knownRisk, planRisk } from '../../src/agent/decisions/approval-policy.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';

const plan: Plan = {
  schemaVersion: 1,
  goal: 'g',
  confidence: 0.9,
  steps: [{ id: 's1', title: 't', tool: 'mcp_x_admin', args: {}, dependsOn: [] }],
  rollback: [],
};

describe('a risk the policy does not know', () => {
  it('counts as destructive: it needs an approver other than the requester', () => {
    // A misconfigured tool (or a value a later version adds) must never lower the bar.
    const need = approvalNeed(planRisk(plan, () => 'admin' as unknown as Risk));
    expect(need).toBe('approver-not-requester');
    expect(planRisk(plan, () => undefined)).toBe('destructive');
    expect(knownRisk('constructor')).toBe('destructive');
    expect(knownRisk(Object.prototype.toString)).toBe('destructive');
    expect(knownRisk('read')).toBe('read');
  });
});
