/**
 * The golden task's expectations, checked against what the run did. Plan checks look at the first
 * plan (the planner's answer to the task); toolsExclude looks at every version, replans included.
 * Each failed check says why, in words that point at the plan.
 */
import { planRisk } from '../agent/decisions/approval-policy.ts';
import type { Plan, PlanStep } from '../agent/model/plan/plan.ts';
import { ancestorsOf } from '../agent/model/plan/plan-graph.ts';
import type { Risk } from '../agent/ports/tool.ts';
import type { Expectations, RunOutcome } from './golden-schema.ts';

export interface Check {
  name: string;
  ok: boolean;
  reason: string | null;
}

export interface RunFacts {
  plans: Plan[];
  outcome: RunOutcome | string;
  escalations: number;
  replans: number;
  riskOf(tool: string): Risk | undefined;
  /** Names of the tools that were called (inside agent_task too). */
  called: readonly string[];
  /** The agent-call facts of the run's agent_task steps, and how the last such step ended. */
  agent: { calls: number; refused: number; status: string | null; errorCode: string | null };
  /** `provider:model` of each plan version written by the fallback planner. */
  fallbackAuthors: readonly string[];
}

const RANK: Record<Risk, number> = { read: 0, write: 1, destructive: 2 };

export function checkExpectations(expect: Expectations, facts: RunFacts): Check[] {
  const checks: Check[] = [];
  const add = (name: string, failure: string | null) => checks.push({ name, ok: failure === null, reason: failure });
  const first = facts.plans[0];
  const planChecks = hasPlanChecks(expect);
  if (planChecks && !first) add('plan', 'no plan was made');
  if (first) {
    const steps = first.steps;
    const used = new Set(steps.map((step) => step.tool));
    const listed = steps.map((step) => `${step.id}:${step.tool}`).join(', ') || 'no steps';
    for (const tool of expect.toolsInclude) add(`uses ${tool}`, used.has(tool) ? null : `the plan has no ${tool} step (${listed})`);
    if (expect.sequence.length) add(`sequence ${expect.sequence.join(' → ')}`, followsSequence(steps, expect.sequence) ? null : `no dependency chain runs ${expect.sequence.join(' → ')} (${describeGraph(steps)})`);
    if (expect.minSteps !== undefined) add(`at least ${expect.minSteps} steps`, steps.length >= expect.minSteps ? null : `the plan has ${steps.length} steps`);
    if (expect.maxSteps !== undefined) add(`at most ${expect.maxSteps} steps`, steps.length <= expect.maxSteps ? null : `the plan has ${steps.length} steps`);
    for (const tool of expect.mustHaveRollbackFor) {
      const bare = steps.filter((step) => step.tool === tool && !first.rollback.some((r) => r.undoes === step.id));
      add(`rollback for ${tool}`, bare.length ? `no rollback step undoes ${bare.map((s) => s.id).join(', ')}` : steps.some((s) => s.tool === tool) ? null : `the plan has no ${tool} step to roll back`);
    }
    if (expect.questions !== undefined) {
      const asks = Boolean(first.questions?.length) && steps.length === 0;
      add(expect.questions ? 'asks the requester' : 'plans without questions', asks === expect.questions ? null : asks ? `the plan only asks: ${first.questions!.join(' / ')}` : `the plan has ${steps.length} steps and ${first.questions?.length ?? 0} questions`);
    }
    if (expect.maxRisk) {
      const risk = planRisk(first, facts.riskOf);
      add(`risk at most ${expect.maxRisk}`, RANK[risk] <= RANK[expect.maxRisk] ? null : `the plan's highest risk is ${risk}`);
    }
    for (const [tool, wanted] of Object.entries(expect.args)) {
      const candidates = steps.filter((step) => step.tool === tool);
      const match = candidates.some((step) => contains(step.args, wanted));
      add(`${tool} args ${JSON.stringify(wanted)}`, match ? null : candidates.length ? `${tool} args were ${candidates.map((s) => JSON.stringify(s.args)).join(' / ')}` : `the plan has no ${tool} step`);
    }
    if (expect.minConfidence !== undefined) add(`confidence ≥ ${expect.minConfidence}`, first.confidence >= expect.minConfidence ? null : `confidence was ${first.confidence}`);
    if (expect.maxConfidence !== undefined) add(`confidence ≤ ${expect.maxConfidence}`, first.confidence <= expect.maxConfidence ? null : `confidence was ${first.confidence}`);
  }
  for (const tool of expect.toolsExclude) {
    const offenders = facts.plans.flatMap((plan, index) => [...plan.steps, ...plan.rollback].filter((step) => step.tool === tool).map((step) => `v${index + 1} ${step.id}`));
    add(`never uses ${tool}`, offenders.length ? `${tool} appears in ${offenders.join(', ')}` : null);
  }
  if (expect.outcome) add(`outcome ${expect.outcome}`, facts.outcome === expect.outcome ? null : `the run ended ${facts.outcome}`);
  if (expect.escalated !== undefined) add(expect.escalated ? 'escalates' : 'no escalation', facts.escalations > 0 === expect.escalated ? null : `${facts.escalations} escalations`);
  if (expect.replans !== undefined) add(`${expect.replans} replans`, facts.replans === expect.replans ? null : `${facts.replans} replans`);
  for (const tool of expect.notCalled) {
    const times = facts.called.filter((name) => name === tool).length;
    add(`never calls ${tool}`, times ? `${tool} was called ${times} time(s)` : null);
  }
  checkAgent(expect.agent, facts.agent, add);
  if (expect.fallback !== undefined) {
    const used = facts.fallbackAuthors.length > 0;
    add(expect.fallback ? 'the fallback planner plans' : 'no fallback planner', used === expect.fallback ? null : used ? `the fallback ${facts.fallbackAuthors.join(', ')} wrote a plan` : 'the fallback planner wrote no plan');
  }
  return checks;
}

function checkAgent(expect: Expectations['agent'], facts: RunFacts['agent'], add: (name: string, failure: string | null) => void): void {
  if (!expect) return;
  if (expect.calls !== undefined) add(`agent makes ${expect.calls} calls`, facts.calls === expect.calls ? null : `the agent made ${facts.calls} calls`);
  if (expect.refused !== undefined) add(`agent is refused ${expect.refused} calls`, facts.refused === expect.refused ? null : `${facts.refused} calls were refused`);
  if (expect.status) add(`agent_task ${expect.status}`, facts.status === expect.status ? null : `the agent_task step ended ${facts.status ?? 'never run'}`);
  if (expect.errorCode) add(`agent_task error ${expect.errorCode}`, facts.errorCode === expect.errorCode ? null : `its error code was ${facts.errorCode ?? 'none'}`);
}

function hasPlanChecks(expect: Expectations): boolean {
  return (
    expect.toolsInclude.length > 0 ||
    expect.sequence.length > 0 ||
    expect.mustHaveRollbackFor.length > 0 ||
    Object.keys(expect.args).length > 0 ||
    [expect.minSteps, expect.maxSteps, expect.questions, expect.maxRisk, expect.minConfidence, expect.maxConfidence].some((v) => v !== undefined)
  );
}

/** Is there a chain of steps using the tools in order, each waiting (transitively) for the one before? */
export function followsSequence(steps: readonly PlanStep[], sequence: readonly string[]): boolean {
  const ancestors = ancestorsOf(steps);
  // ends: steps that can end a matching chain of the sequence so far.
  let ends = steps.filter((step) => step.tool === sequence[0]);
  for (const tool of sequence.slice(1)) {
    ends = steps.filter((step) => step.tool === tool && ends.some((end) => ancestors.get(step.id)?.has(end.id)));
    if (ends.length === 0) return false;
  }
  return ends.length > 0;
}

function describeGraph(steps: readonly PlanStep[]): string {
  return steps.map((step) => `${step.id}:${step.tool}${step.dependsOn.length ? `←${step.dependsOn.join('+')}` : ''}`).join(', ') || 'no steps';
}

/** Deep partial match: every key of `wanted` is in `actual` with a matching value; strings match case-insensitively as substrings. */
export function contains(actual: unknown, wanted: unknown): boolean {
  if (typeof wanted === 'string') return typeof actual === 'string' && actual.toLowerCase().includes(wanted.toLowerCase());
  if (Array.isArray(wanted)) return Array.isArray(actual) && wanted.every((item) => actual.some((candidate) => contains(candidate, item)));
  if (wanted && typeof wanted === 'object') {
    if (!actual || typeof actual !== 'object') return false;
    return Object.entries(wanted).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value));
  }
  return actual === wanted;
}
