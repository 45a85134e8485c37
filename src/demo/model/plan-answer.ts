/** Building the planner's answer (the shape of PlannerAnswerSchema) from plain steps, so each demo plan reads as a list. */
import type { PlannerAnswer } from '../../agent/planning/planner-schema.ts';

export interface DemoStep {
  id: string;
  title: string;
  tool: string;
  args: Record<string, unknown>;
  dependsOn?: string[];
  expect?: string;
}

export interface DemoRollback {
  id: string;
  title: string;
  tool: string;
  args: Record<string, unknown>;
  undoes?: string;
}

export function planAnswer(input: {
  goal: string;
  confidence: number;
  steps: DemoStep[];
  rollback?: DemoRollback[];
  /** Parts of the task the plan does not do, said on the plan. */
  notCovered?: { part: string; reason: string }[];
}): PlannerAnswer {
  return {
    goal: input.goal,
    confidence: input.confidence,
    steps: input.steps.map((step) => ({
      id: step.id,
      title: step.title,
      tool: step.tool,
      argsJson: JSON.stringify(step.args),
      dependsOn: step.dependsOn ?? [],
      expect: step.expect ?? null,
    })),
    rollback: (input.rollback ?? []).map((step) => ({
      id: step.id,
      title: step.title,
      tool: step.tool,
      argsJson: JSON.stringify(step.args),
      undoes: step.undoes ?? null,
    })),
    questions: [],
    notCovered: input.notCovered ?? [],
  };
}

export function questionAnswer(question: string): PlannerAnswer {
  return { goal: 'Ask which demo task to plan', confidence: 1, steps: [], rollback: [], questions: [question] };
}
