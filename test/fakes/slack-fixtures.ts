import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { EscalationRecord, RunRecord, StepStatus } from '../../src/agent/ports/run-store.ts';
import type { BoardState, EscalationOffer, ProposedPlan } from '../../src/agent/ports/surface.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';

export function makeRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const now = new Date('2026-11-21T22:00:00Z');
  return {
    id: 'run_1',
    task: 'merge PR 42 on acme/api once CI is green',
    requester: 'UREQ',
    conversation: { channel: 'C1', threadTs: '1700000000.000100' },
    origin: 'mention',
    status: 'awaiting-approval',
    currentPlanVersion: 1,
    replans: 0,
    boardRef: null,
    summary: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    ...overrides,
  };
}

/** A plan of `count` steps, each with realistic args; the last one destructive when asked. */
export function makePlan(count: number, options: { longTitles?: boolean } = {}): Plan {
  const steps = Array.from({ length: count }, (_, index) => ({
    id: `s${index + 1}`,
    title: options.longTitles ? `Step ${index + 1}: ${'check the pipeline and everything around it '.repeat(4)}` : `Check CI run ${index + 1}`,
    tool: index === count - 1 ? 'github_merge_pull' : 'github_list_workflow_runs',
    args: { repo: 'acme/api', branch: `feature/<${index}>&x`, limit: 5, status: 'completed' },
    dependsOn: index > 0 ? [`s${index}`] : [],
    expect: 'all green',
  }));
  return {
    schemaVersion: 1,
    goal: 'Merge PR 42 on acme/api <safely> & quickly',
    confidence: 0.82,
    steps,
    rollback: [{ id: 'r1', title: 'Revert the merge', tool: 'github_create_issue', args: { repo: 'acme/api', title: 'revert' } }],
  };
}

export function risksOf(plan: Plan): Record<string, Risk> {
  return Object.fromEntries(plan.steps.map((step) => [step.id, step.tool === 'github_merge_pull' ? 'destructive' : 'read']));
}

export function makeProposal(plan: Plan, overrides: Partial<ProposedPlan> = {}): ProposedPlan {
  return {
    run: makeRun(),
    version: 1,
    plan,
    authorKind: 'planner',
    authorId: 'openai:gpt-4o',
    risks: risksOf(plan),
    diff: null,
    reason: null,
    autoApproved: false,
    ...overrides,
  };
}

export function makeBoard(plan: Plan, overrides: Partial<BoardState> = {}): BoardState {
  return {
    runId: 'run_1',
    goal: plan.goal,
    planVersion: 1,
    runStatus: 'executing',
    steps: plan.steps.map((step, index) => ({
      stepId: step.id,
      title: step.title,
      tool: step.tool,
      kind: 'forward',
      status: index === 0 ? 'succeeded' : index === 1 ? 'running' : 'pending',
      elapsedMs: index < 2 ? 1500 : null,
      url: index === 0 ? 'https://github.com/acme/api/actions/runs/1' : null,
      note: null,
    })),
    startedAt: new Date('2026-11-21T22:00:00Z'),
    elapsedMs: 4000,
    ...overrides,
  };
}

export function makeEscalation(overrides: Partial<EscalationRecord> = {}): EscalationRecord {
  return {
    id: 'esc_1',
    runId: 'run_1',
    planVersion: 1,
    stepId: 's2',
    kind: 'evaluation-failed',
    message: 'CI run 7 concluded <failure> & the PR is not mergeable',
    status: 'open',
    resolution: null,
    resolvedBy: null,
    createdAt: new Date('2026-11-21T22:01:00Z'),
    resolvedAt: null,
    ...overrides,
  };
}

/** The board with its first `progress` steps done, the next one running and the rest waiting (no links). */
export function boardAt(plan: Plan, progress: number, runStatus: BoardState['runStatus'] = 'executing'): BoardState {
  const board = makeBoard(plan, { runStatus });
  board.steps = board.steps.map((step, index) => ({
    ...step,
    status: (index < progress ? 'succeeded' : index === progress ? 'running' : 'pending') as StepStatus,
    url: null,
  }));
  return board;
}

/** What a failed step's escalation offers, as the agent would say it (see execution/escalation-offer.ts). */
export function makeOffer(overrides: Partial<EscalationOffer> = {}): EscalationOffer {
  return {
    answers: ['retry', 'skip', 'replan', 'abort'],
    happened: '“Check CI on acme/api#42” ran, but its result did not pass the check: CI run 7 concluded <failure> & the PR is not mergeable.',
    stepTitle: 'Check CI on acme/api#42',
    changed: [],
    onHold: ['Merge acme/api#42'],
    abortRollsBack: false,
    ...overrides,
  };
}
